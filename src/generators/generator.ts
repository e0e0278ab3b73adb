// Answer generators: what writes a checkpoint's answers to the questions (src/ops/checkpoints.ts), beside the
// judges and on their loaders (an OpenAI-compatible server through the judges' client setup, or a GGUF +
// LoRA in-process through the llama-cpp judge's model loader).

/** Writes a model's answer to a conversation. */
export interface AnswerGenerator {
  /** The reply to the last of `turns`, after the model's `previous` replies to the earlier ones; trimmed. */
  generate(turns: readonly string[], previous: readonly string[], temperature: number): Promise<string>;
  /** conversations it can usefully generate at once (1: one after the other) */
  readonly concurrency?: number;
  close(): Promise<void>;
}
