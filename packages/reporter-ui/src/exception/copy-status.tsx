/** Copying YAML to the clipboard from a panel: its state, and the status line screen readers announce. */
import { Text } from "@mantine/core";
import { useState } from "react";
import { copyText } from "./clipboard.ts";

/** Where a copy stands. */
export type CopyState = "idle" | "copied" | "failed";

/** The copy state of `text` and the action that copies it; `reset` when the text changes. */
export function useCopy(text: string): { state: CopyState; copy: () => void; reset: () => void } {
  const [state, setState] = useState<CopyState>("idle");
  const copy = () => {
    copyText(text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return { state, copy, reset: () => setState("idle") };
}

/** The polite status line: copied, or how to copy by hand when the browser refused. */
export function CopyStatus({ state }: { state: CopyState }) {
  return (
    <Text size="sm" role="status" aria-live="polite">
      {state === "copied"
        ? "Copied to the clipboard."
        : state === "failed"
          ? "Copy failed: select the YAML and copy it."
          : ""}
    </Text>
  );
}
