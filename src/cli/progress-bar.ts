import cliProgress from 'cli-progress';

/** Whether progress is drawn as a bar (stderr is a terminal) or written as plain lines (a pipe, a file, cron). */
export const drawsBar = (): boolean => process.stderr.isTTY === true;

/** How long the rate remembers: a burst or a stall moves the ETA over about a minute, not at once. */
const TAU_S = 60;
/** A plain line (not a terminal) at most this often. */
const PLAIN_EVERY_MS = 5000;

/** The games' rate and ETA, smoothed: games finished weighted by exp(-age / TAU_S), over the same weight of time. */
class Pace {
  private weighted = 0;
  private at: number;
  private seen = 0;
  constructor(
    private readonly total: number,
    private readonly t0: number,
  ) {
    this.at = t0;
  }

  /** `finished` games (played or failed) by `now` (ms). */
  observe(now: number, finished: number): void {
    this.weighted = this.weighted * Math.exp(-(now - this.at) / 1000 / TAU_S) + (finished - this.seen);
    this.at = now;
    this.seen = finished;
  }

  /** Games per second at `now`; undefined before the first game finished. */
  rate(now: number): number | undefined {
    if (!this.seen) return undefined;
    const s = this.weighted * Math.exp(-(now - this.at) / 1000 / TAU_S);
    const elapsed = Math.max((now - this.t0) / 1000, 1e-3);
    return s / (TAU_S * (1 - Math.exp(-elapsed / TAU_S)));
  }

  /** Seconds left at the smoothed rate; undefined before the first game finished. */
  eta(now: number): number | undefined {
    const r = this.rate(now);
    return r === undefined ? undefined : (this.total - this.seen) / r;
  }
}

/** `6s`, `4m40s`, `1h02m`: an ETA, as cli-progress spells one. */
export function etaText(s: number | undefined): string {
  if (s === undefined || !Number.isFinite(s)) return '-';
  const r = Math.round(s);
  if (r < 60) return `${r}s`;
  if (r < 3600) return `${Math.floor(r / 60)}m${String(r % 60).padStart(2, '0')}s`;
  return `${Math.floor(r / 3600)}h${String(Math.floor((r % 3600) / 60)).padStart(2, '0')}m`;
}

type Payload = Record<string, string | number>;

/**
 * A games progress line on stderr in `format` (`{value}`, `{total}`, `{bar}`, `{rate}`, `{eta}`, and the caller's
 * own tokens): cli-progress's bar on a terminal; elsewhere a plain line, only when a game finished since the last.
 */
export class Progress {
  private pace: Pace | undefined;
  private value = 0;
  private total = 0;
  private payload: Payload = {};
  private bar: cliProgress.SingleBar | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastValue = -1;
  private lastFailed: unknown;

  constructor(
    private readonly format: string,
    private readonly o: { tty?: boolean; now?: () => number; write?: (line: string) => void } = {},
  ) {}

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  start(total: number, value: number, payload: Payload): void {
    this.total = total;
    this.value = value;
    this.payload = payload;
    this.pace = new Pace(total, this.now());
    if (this.o.tty ?? drawsBar()) {
      this.bar = new cliProgress.SingleBar(
        // cli-progress fills its own {eta} (unsmoothed, after the payload): ours goes under another name
        { format: this.format.replace('{eta}', '{eta_smoothed}'), stream: process.stderr, hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(total, value, this.tokens());
    } else {
      this.timer = setInterval(() => this.tick(), PLAIN_EVERY_MS);
      this.timer.unref?.();
    }
  }

  update(value: number, payload: Payload): void {
    this.value = value;
    this.payload = { ...this.payload, ...payload };
    this.pace?.observe(this.now(), value);
    this.bar?.update(value, this.tokens());
  }

  getProgress(): number {
    return this.total ? this.value / this.total : 1;
  }

  /** The plain line now, when a game finished since the last one written; the timer writes it. */
  tick(): string | undefined {
    if (this.value === this.lastValue && this.payload.failed === this.lastFailed) return undefined;
    this.lastValue = this.value;
    this.lastFailed = this.payload.failed;
    const line = this.render();
    (this.o.write ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
    return line;
  }

  stop(): void {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.tick();
    }
    this.bar?.stop();
    this.bar = undefined;
  }

  private tokens(): Payload {
    const now = this.now();
    const rate = this.pace?.rate(now);
    const eta = etaText(this.pace?.eta(now));
    return { ...this.payload, rate: rate === undefined ? '-' : rate.toFixed(1), eta, eta_smoothed: eta };
  }

  private render(): string {
    const t: Payload = { ...this.tokens(), value: this.value, total: this.total };
    return this.format.replace(/\{bar\} ?/, '').replace(/\{(\w+)\}/g, (m, k: string) => String(t[k] ?? m));
  }
}
