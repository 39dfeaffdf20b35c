/**
 * The JSON pointers of a condition block's entries (`/validate/deny/conditions/all/0/key`), used by
 * `{{@}}` and in error messages. Built on first use per location and kept: the locations come from the
 * shapes of policies (which repeat on every request), not from requests.
 */

/** The pointers of one condition: the entry, its `key` and its `value`. */
export interface EntryPaths {
  readonly at: string;
  readonly key: string;
  readonly value: string;
}

/** The pointers of one condition block, by list (`any`, `all`, or the legacy list itself). */
export interface ConditionPaths {
  /** The block's own pointer. */
  readonly base: string;
  /** The pointers of entry `index` of `any` / `all`, or of the legacy list (`list`). */
  entry(list: "any" | "all" | "list", index: number): EntryPaths;
}

/** Entries per list kept (longer lists are served with fresh, unkept pointers). */
const MAX_KEPT = 64;

/** Creates the (lazily filled) pointers of the condition block at `base`. */
export function conditionPaths(base: string): ConditionPaths {
  const lists: Record<"any" | "all" | "list", EntryPaths[]> = { any: [], all: [], list: [] };
  return {
    base,
    entry(list, index) {
      const known = lists[list];
      let paths = known[index];
      if (paths === undefined) {
        const at = list === "list" ? `${base}/${index}` : `${base}/${list}/${index}`;
        paths = { at, key: `${at}/key`, value: `${at}/value` };
        if (index === known.length && index < MAX_KEPT) known.push(paths);
      }
      return paths;
    },
  };
}
