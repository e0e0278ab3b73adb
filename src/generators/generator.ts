// Answer generators: what writes a checkpoint's answers (src/ops/checkpoints.ts), on the judges' client setup
// (an OpenAI-compatible server) or model loader (a GGUF + LoRA in-process).

/** Writes a model's answer to a conversation. */
export interface AnswerGenerator {
  /** The reply to the last of `turns`, after the model's `previous` replies to the earlier ones; trimmed. */
  generate(turns: readonly string[], previous: readonly string[], temperature: number): Promise<string>;
  /** conversations it can usefully generate at once (1: one after the other) */
  readonly concurrency?: number;
  close(): Promise<void>;
}
