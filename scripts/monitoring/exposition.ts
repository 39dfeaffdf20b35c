// Reading a Prometheus text exposition into families (type and the label-name sets of their samples),
// and comparing one binary's scrape with the families its catalog documents.
//
// Plain Node 24 type stripping: erasable TypeScript only.

/** A family as scraped: its declared type and the distinct label-name lists of its samples. */
export interface ScrapedFamily {
  type: string;
  /** Sorted label names of each sample, joined by ",", without a histogram bucket's `le`. */
  labelSets: Set<string>;
  samples: number;
}

/** A documented family: name, type and labels. */
export interface DocumentedFamily {
  name: string;
  type: string;
  labels: readonly string[];
}

/** Parses an exposition. */
export function parseExposition(text: string): Map<string, ScrapedFamily> {
  const families = new Map<string, ScrapedFamily>();
  let current: { name: string; family: ScrapedFamily } | undefined;
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      const family: ScrapedFamily = { type: type[2] as string, labelSets: new Set(), samples: 0 };
      families.set(type[1] as string, family);
      current = { name: type[1] as string, family };
      continue;
    }
    if (line === "" || line.startsWith("#") || current === undefined) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? \S+$/.exec(line);
    if (sample === null) throw new Error(`not an exposition line: ${line}`);
    const labels = [...(sample[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g)]
      .map((m) => m[1] as string)
      .filter((l) => !(l === "le" && sample[1]?.endsWith("_bucket")));
    current.family.labelSets.add(labels.sort().join(","));
    current.family.samples++;
  }
  return families;
}

/**
 * Differences between a scrape and the documented families: families scraped but not documented,
 * documented but not scraped, with another type, or with samples whose label names are not the
 * documented ones.
 */
export function compareWithCatalog(
  scraped: ReadonlyMap<string, ScrapedFamily>,
  documented: readonly DocumentedFamily[],
): string[] {
  const problems: string[] = [];
  const byName = new Map(documented.map((d) => [d.name, d]));
  for (const [name, family] of scraped) {
    const doc = byName.get(name);
    if (doc === undefined) {
      problems.push(`${name}: scraped but not documented`);
      continue;
    }
    if (doc.type !== family.type) problems.push(`${name}: type ${family.type}, documented ${doc.type}`);
    const expected = [...doc.labels].sort().join(",");
    for (const set of family.labelSets)
      if (set !== expected) problems.push(`${name}: labels {${set}}, documented {${expected}}`);
  }
  for (const doc of documented)
    if (!scraped.has(doc.name)) problems.push(`${doc.name}: documented but not scraped`);
  return problems;
}
