// A stand-in for Auto-J's constants_prompt.py (not shipped: no licence): the same Python shape with placeholder
// text, pinned by its own hash; AUTOJ_DIR (a folder with the real file) adds the checks of the real text.
import { gitBlobSha1 } from '../../src/importers/download.ts';

/** The first words of the stand-in's pairwise template (a fake judge recognises Auto-J's prompt by them). */
export const AUTOJ_FIXTURE_START = 'Stand-in pairwise template: compare the two responses.';

export const AUTOJ_FIXTURE_TEXT = `PROMPT_INPUT_SYSTEM: str = '[INST] <<SYS>>\\n{system_message}\\n<</SYS>>\\n\\n{input} [/INST]'

PROMPT_INPUT_WO_SYSTEM: str = "[INST] {input} [/INST]"

single = """Stand-in single template.
[Query]: {prompt}
[Response]: {response}"""

pairwise_tie = """${AUTOJ_FIXTURE_START} It's a \\"placeholder\\":

[BEGIN DATA]
***
[Query]: {prompt}
***
[Response 1]: {response}
***
[Response 2]: {response_another}
***
[END DATA]

Finish with "So, the final decision is Response 1 / Response 2 / Tie"."""

protocol_mapping = {
    "pairwise_tie": pairwise_tie,
    "single": single,
}
`;

export const AUTOJ_FIXTURE = Buffer.from(AUTOJ_FIXTURE_TEXT);
/** the stand-in's own pin, passed to the downloader in place of the real file's */
export const AUTOJ_FIXTURE_PIN = { blob: gitBlobSha1(AUTOJ_FIXTURE), size: AUTOJ_FIXTURE.length };

/** AUTOJ_DIR: a folder holding the real constants_prompt.py at the pinned commit, where one is at hand. */
export const AUTOJ_DIR = process.env.AUTOJ_DIR || undefined;
