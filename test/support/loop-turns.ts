// Counting event-loop turns while some work runs: a piece of work that gives the loop back (between slices, between
// batches) lets this counter run in between; work done in one go leaves it at zero (or one, before the work starts).
export function countLoopTurns(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let ticker: NodeJS.Immediate | undefined;
  const tick = () => {
    turns++;
    ticker = setImmediate(tick);
  };
  ticker = setImmediate(tick);
  return { turns: () => turns, stop: () => clearImmediate(ticker) };
}
