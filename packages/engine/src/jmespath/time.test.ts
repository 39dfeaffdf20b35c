import { describe, expect, it } from "vitest";
import { evaluator } from "./testing/evaluator.js";

const NOW = new Date("2023-01-12T12:00:00.5Z");
const { value, error } = evaluator(NOW);

describe("time_now / time_now_utc", () => {
  it("read the injected clock", () => {
    expect(value("time_now()")).toBe("2023-01-12T12:00:00Z");
    expect(value("time_now_utc()")).toBe("2023-01-12T12:00:00Z");
    expect(value("time_after(time_now_utc(), '2023-01-12T00:00:00Z')")).toBe(true);
  });
  it("take no arguments", () => {
    expect(error("time_now('x')")).toContain("Invalid arity");
  });
});

describe("time_since", () => {
  it("computes durations with RFC 3339 or Go layouts", () => {
    expect(value("time_since('', '2022-04-10T03:14:05-07:00', '2022-04-11T03:14:05-07:00')")).toBe("24h0m0s");
    expect(
      value(
        "time_since('Mon Jan _2 15:04:05 MST 2006', 'Mon Jan 02 15:04:05 MST 2021', 'Mon Jan 10 03:14:16 MST 2021')",
      ),
    ).toBe("180h10m11s");
    expect(value("time_since('2006-Jan-02', '2020-Jan-14', '2020-Jan-17')")).toBe("72h0m0s");
    expect(value("time_since('', '2023-01-10T03:14:05Z', '')")).toBe("56h45m55.5s");
  });
  it("rejects unparseable times", () => {
    expect(error("time_since('', 'yesterday', '')")).toBe(
      'JMESPath function \'time_since\': parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    );
  });
});

describe("time_add", () => {
  it("adds durations keeping the offset", () => {
    expect(value("time_add('2023-01-12T12:37:56-05:00', '6h')")).toBe("2023-01-12T18:37:56-05:00");
    expect(value("time_add('2023-01-12T23:30:00Z', '1h30m')")).toBe("2023-01-13T01:00:00Z");
    expect(value("time_add('2024-02-28T00:00:00Z', '-24h')")).toBe("2024-02-27T00:00:00Z");
  });
  it("rejects bad durations", () => {
    expect(error("time_add('2023-01-12T12:37:56Z', '1d')")).toBe(
      "JMESPath function 'time_add': time: invalid duration \"1d\"",
    );
  });
});

describe("time_parse", () => {
  it("converts Go layouts and epochs to RFC 3339", () => {
    expect(value("time_parse('Mon Jan 02 2006 15:04:05 -0700', 'Fri Jun 22 2022 17:45:00 +0100')")).toBe(
      "2022-06-22T17:45:00+01:00",
    );
    expect(value("time_parse('2006-01-02T15:04:05Z07:00', '2021-01-02T15:04:05-07:00')")).toBe(
      "2021-01-02T15:04:05-07:00",
    );
    expect(value("time_parse('1702691171', '1702691171')")).toBe("2023-12-16T01:46:11Z");
    expect(value("time_parse('02/01/2006 3:04PM', '24/12/2023 7:05PM')")).toBe("2023-12-24T19:05:00Z");
    expect(value("time_parse('2006-01-02 15:04:05.000', '2023-03-04 05:06:07.123')")).toBe(
      "2023-03-04T05:06:07Z",
    );
    expect(value("time_parse('January 2, 2006', 'february 29, 2024')")).toBe("2024-02-29T00:00:00Z");
  });
  it("rejects values that do not fit the layout", () => {
    expect(error("time_parse('2006-01-02', '2023-02-30')")).toContain("day out of range");
    expect(error("time_parse('2006-01-02', '2023-01-02 extra')")).toContain('extra text: " extra"');
    expect(error("time_parse('15:04', '25:00')")).toContain("hour out of range");
  });
});

describe("time_utc", () => {
  it("converts to UTC", () => {
    expect(value("time_utc('2021-01-02T18:04:05-05:00')")).toBe("2021-01-02T23:04:05Z");
    expect(value("time_utc('2021-01-02T02:04:05+08:30')")).toBe("2021-01-01T17:34:05Z");
  });
  it("needs RFC 3339", () => {
    expect(error("time_utc('2021-01-02 18:04:05')")).toContain("time_utc");
  });
});

describe("time_diff", () => {
  it("returns signed durations", () => {
    expect(value("time_diff('2023-01-10T00:00:00Z', '2023-01-11T00:00:00Z')")).toBe("24h0m0s");
    expect(value("time_diff('2023-01-12T00:00:00Z', '2023-01-11T00:00:00Z')")).toBe("-24h0m0s");
    expect(value("time_diff('2023-01-12T00:00:00Z', '2023-01-12T00:00:01.25Z')")).toBe("1.25s");
  });
  it("rejects non-times", () => {
    expect(error("time_diff('x', '2023-01-11T00:00:00Z')")).toContain("time_diff");
  });
});

describe("time_before / time_after / time_between", () => {
  it("compare instants", () => {
    expect(value("time_before('2023-01-12T19:05:59Z', '2023-01-13T19:05:59Z')")).toBe(true);
    expect(value("time_before('2023-01-12T19:05:59Z', '2023-01-11T19:05:59Z')")).toBe(false);
    expect(value("time_after('2023-01-12T14:07:55-05:00', '2023-01-12T19:05:59Z')")).toBe(true);
    expect(value("time_after('2023-01-12T19:05:59Z', '2023-01-13T19:05:59Z')")).toBe(false);
    expect(
      value("time_between('2023-01-12T19:05:59Z', '2023-01-01T19:05:59Z', '2023-01-15T19:05:59Z')"),
    ).toBe(true);
    expect(
      value("time_between('2023-01-12T19:05:59Z', '2023-01-01T19:05:59Z', '2023-01-11T19:05:59Z')"),
    ).toBe(false);
  });
  it("reject bad input", () => {
    expect(error("time_before('2023-01-12', '2023-01-13T19:05:59Z')")).toContain("time_before");
    expect(error("time_after(`1`, '2023-01-13T19:05:59Z')")).toContain("time_after()");
    expect(error("time_between('a', 'b', 'c')")).toContain("time_between");
  });
});

describe("time_truncate", () => {
  it("rounds down to multiples of the duration", () => {
    expect(value("time_truncate('2023-01-12T17:37:00Z', '1h')")).toBe("2023-01-12T17:00:00Z");
    expect(value("time_truncate('2023-01-12T17:37:00Z', '2h')")).toBe("2023-01-12T16:00:00Z");
    expect(value("time_truncate('2021-01-02T23:04:05Z', '2h')")).toBe("2021-01-02T22:00:00Z");
  });
  it("rejects bad durations", () => {
    expect(error("time_truncate('2023-01-12T17:37:00Z', 'soon')")).toContain("invalid duration");
  });
});

describe("time_to_cron", () => {
  it("renders minute hour day month weekday in the time's own offset", () => {
    expect(value("time_to_cron('2022-04-11T03:14:05-07:00')")).toBe("14 3 11 4 1");
    expect(value("time_add('2023-01-12T12:00:00Z', '4h') | time_to_cron(@)")).toBe("0 16 12 1 4");
  });
  it("rejects non-RFC 3339 input", () => {
    expect(error("time_to_cron('tomorrow')")).toContain("time_to_cron");
  });
});
