/** The free-text search box: typing updates the URL after a short pause, Escape clears it. */
import { CloseButton, TextInput } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { useEffect, useState } from "react";

/** A search input bound to `value`, reporting changes debounced by 300 ms. */
export function SearchInput({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const report = useDebouncedCallback(onChange, 300);
  return (
    <TextInput
      label="Search"
      placeholder="Resource, kind or policy"
      value={text}
      type="search"
      onChange={(event) => {
        setText(event.currentTarget.value);
        report(event.currentTarget.value);
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape" && text) {
          setText("");
          onChange("");
        }
      }}
      rightSection={
        text ? (
          <CloseButton
            aria-label="Clear search"
            onClick={() => {
              setText("");
              onChange("");
            }}
          />
        ) : null
      }
    />
  );
}
