// The simulations' truth, computed here independently of the code under test.

export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** E[sigmoid(a + e)] for e ~ N(0, sd^2), by the trapezoid rule on ±10 sd. */
export function expectedLogistic(a: number, sd: number): number {
  const steps = 4000;
  const h = (20 * sd) / steps;
  let sum = 0;
  for (let k = 0; k <= steps; k++) {
    const e = -10 * sd + k * h;
    sum += (k === 0 || k === steps ? 0.5 : 1) * sigmoid(a + e) * Math.exp((-e * e) / (2 * sd * sd));
  }
  return (sum * h) / (sd * Math.sqrt(2 * Math.PI));
}
