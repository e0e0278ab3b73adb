// Parsers for the MT-Bench / FastChat file formats, one file each under formats/. Pure: bytes in, typed
// records out. Every problem is one ArenaError naming the file, the line and the field.
export { decodeUtf8, parseJsonl, type Located } from './formats/located.ts';
export { parseQuestions, questionsFrom } from './formats/questions.ts';
export {
  answerChecker,
  answersFrom,
  modelFromFile,
  modelOfAnswers,
  parseAnswers,
  referencesFrom,
} from './formats/answers.ts';
export { parsePrompts, promptsFrom } from './formats/prompts.ts';
export { recordedGamesOfLine } from './formats/judgments.ts';
export { parseVotes } from './formats/votes.ts';
