/**
 * The JSON pointers of a validate block's parts (`/validate/preconditions`, `/validate/foreach/0`),
 * used by `{{@}}` and in messages. Built on first use and kept in one tree from `/validate` down: its
 * nodes follow the shapes of policies (foreach indexes, anyPattern indexes), which repeat on every
 * request, so evaluating a block builds no path strings.
 */
import { type ConditionPaths, conditionPaths } from "../evaluation/condition-paths.js";

/** The pointers of one validate block (the rule's `validate`, or a foreach entry). */
export interface BlockPaths {
  readonly base: string;
  readonly context: string;
  readonly preconditions: ConditionPaths;
  readonly deny: ConditionPaths;
  readonly pattern: string;
  /** `base/anyPattern/i`. */
  anyPattern(index: number): string;
  /** The block of foreach entry `index`: `base/foreach/index`. */
  foreach(index: number): BlockPaths;
}

/** Nodes per list kept in the tree (longer lists are served with fresh, unkept nodes). */
const MAX_KEPT = 64;

/** Creates the (lazily filled) pointers of the block at `base`. */
export function blockPaths(base: string): BlockPaths {
  const anyPatterns: string[] = [];
  const foreachEntries: BlockPaths[] = [];
  return {
    base,
    context: `${base}/context`,
    preconditions: conditionPaths(`${base}/preconditions`),
    deny: conditionPaths(`${base}/deny/conditions`),
    pattern: `${base}/pattern`,
    anyPattern(index) {
      let path = anyPatterns[index];
      if (path === undefined) {
        path = `${base}/anyPattern/${index}`;
        if (index === anyPatterns.length && index < MAX_KEPT) anyPatterns.push(path);
      }
      return path;
    },
    foreach(index) {
      let paths = foreachEntries[index];
      if (paths === undefined) {
        paths = blockPaths(`${base}/foreach/${index}`);
        if (index === foreachEntries.length && index < MAX_KEPT) foreachEntries.push(paths);
      }
      return paths;
    },
  };
}
