// What a user reads when a command fails: without --verbose (or ARENA_DEBUG=1), no origin tags and no stack.

/** An origin tag ("[ops:prices] ", "[judge:openai] "), as the layers below the CLI prefix their messages. */
const ORIGIN_TAG = /\[[a-z]+(?:-[a-z]+)*:[a-z0-9.-]+\] ?/g;

/** The message as a user reads it: origin tags dropped unless `verbose`. */
export function userMessage(message: string, verbose: boolean): string {
  return verbose ? message : message.replace(ORIGIN_TAG, '');
}

/** Whether this command was given --verbose (or ARENA_DEBUG=1); main.ts sets it for each command. */
export const verbosity = { on: false };

/** A run's failed calls as the lines under its summary: each different message once (a server down fails all alike). */
export function failureLines(errors: readonly string[]): string[] {
  return [...new Set(errors.map((e) => userMessage(e, verbosity.on)))]
    .slice(0, 5)
    .map((m) => `  failed: ${m}`);
}

/** The global --verbose switch: whether it was given, and the arguments without it. */
export function verboseSwitch(args: readonly string[], env: Record<string, string | undefined>) {
  const rest = args.filter((a) => a !== '--verbose');
  return { verbose: rest.length < args.length || env.ARENA_DEBUG === '1', args: rest };
}
