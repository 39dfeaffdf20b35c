/** The `process` property upstream puts on results of background scans and of admission reviews. */
export const PROCESS_PROPERTY = { background: "background scan", admission: "admission review" } as const;
