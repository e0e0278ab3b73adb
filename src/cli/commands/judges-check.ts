// `arena judges check openai/MODEL`: what a server offers, and what is known of the model (shutdown, price, successor).
import { familyOf, isOpenAI } from '../../judges/contract.ts';
import { OPENAI_MODELS_READ, modelEntry } from '../../core/openai-models.ts';
import { createJudge } from '../../judges/registry.ts';
import { retirementOf, retirementWarning, type ListedModel } from '../../core/retirement.ts';
import { judgeSetupOf } from '../judge-args.ts';
import { UsageError } from '../format.ts';
import { defineCommand } from 'citty';
import { exitStatus, jsonArg, print, printJson } from '../shared.ts';

export const checkCommand = defineCommand({
  meta: {
    name: 'check',
    description:
      "what an OpenAI-compatible server offers (GET /v1/models), and the model's shutdown date, family, price and successor",
  },
  args: {
    judge: { type: 'positional', required: true, description: 'openai/MODEL', valueHint: 'openai/MODEL' },
    'base-url': { type: 'string', description: 'an OpenAI-compatible server (default: OpenAI)' },
    ...jsonArg,
  },
  run: ({ args }) => checkJudge(args.judge, args['base-url'], !!args.json),
});

async function checkJudge(spec: string, baseURL: string | undefined, json: boolean): Promise<void> {
  if (!spec.startsWith('openai/'))
    throw new UsageError(
      `judges check: expected openai/MODEL (a judge on an OpenAI-compatible server), got "${spec}"`,
    );
  const model = spec.slice('openai/'.length);
  const setup = judgeSetupOf(spec, baseURL ? { 'base-url': baseURL } : {});
  const apiKey = process.env[setup.apiKeyEnv ?? 'OPENAI_API_KEY'];
  const judge = await createJudge(spec, { ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) });
  const raw = judge as { listModels?(s?: AbortSignal): Promise<ListedModel[]> };
  let listed: ListedModel[] | undefined;
  let why: string | undefined;
  try {
    listed = await raw.listModels?.(AbortSignal.timeout(30_000));
  } catch (e) {
    why = (e as Error).message;
  }
  await judge.close?.();
  const official = isOpenAI(baseURL);
  const r = retirementOf(spec, model, listed, official);
  const entry = modelEntry(model);
  const report = {
    judge: spec,
    server: baseURL ?? 'https://api.openai.com/v1',
    offered: listed ? listed.some((m) => m.id === model) : null,
    family: familyOf(model),
    ...(r ? { shutdown: r.shutdown, shutdownSource: r.source } : {}),
    ...(entry
      ? {
          price: {
            input: entry.input,
            cachedInput: entry.cachedInput ?? entry.input,
            output: entry.output,
            read: OPENAI_MODELS_READ,
          },
        }
      : {}),
    ...(entry?.successor ? { successor: entry.successor } : {}),
    models: listed ?? [],
  };
  if (json) printJson(report);
  else {
    if (!listed) print(`${report.server} did not list its models: ${why ?? 'no answer'}`);
    else {
      print(`${report.server} offers ${listed.length} model(s):`);
      for (const m of listed) print(`  ${m.id}${m.shutdownDate ? `  (shutdown ${m.shutdownDate})` : ''}`);
    }
    print(
      `${spec}: ${report.offered === null ? 'not known whether offered' : report.offered ? 'offered' : 'NOT offered'}; ${report.family} model` +
        `${entry ? `; $${entry.input}/$${entry.cachedInput ?? entry.input}/$${entry.output} per 1M input/cached/output tokens (table read ${OPENAI_MODELS_READ})` : ''}` +
        `${r ? `; shutdown ${r.shutdown} (${r.source})` : ''}${entry?.successor ? `; successor ${entry.successor}` : ''}`,
    );
    const warn = retirementWarning(r, baseURL);
    if (warn) print(`warning: ${warn}`);
  }
  if (report.offered === false) exitStatus.code = 2;
}
