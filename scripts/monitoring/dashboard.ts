// A small builder of Grafana dashboards (schema 39): rows of panels laid out left to right on
// Grafana's 24-column grid, every query on the dashboard's Prometheus data source variable. The
// dashboards are written with it (kyverno-dashboard.ts, policy-reporter-dashboard.ts) and
// `generate.ts` writes them as JSON into the charts.
//
// Plain Node 24 type stripping: erasable TypeScript only.

/** One PromQL query of a panel. */
export interface Query {
  expr: string;
  /** Legend (`{{label}}` placeholders), or the series' labels when omitted. */
  legend?: string;
  /** Table panels: an instant query. */
  instant?: boolean;
}

/** A panel, before layout. */
export interface PanelSpec {
  title: string;
  description: string;
  type: "timeseries" | "stat" | "table" | "bargauge";
  queries: Query[];
  /** Grafana unit (`reqps`, `s`, `bytes`, `percentunit`, `short`, `dtdurations`). */
  unit?: string;
  /** Width in grid columns (default 8: three per row). */
  width?: number;
  /** Stacked time series (shares of a whole). */
  stacked?: boolean;
}

/** A row of panels with a title. */
export interface RowSpec {
  title: string;
  panels: PanelSpec[];
}

/** What a dashboard needs besides its rows. */
export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  tags: string[];
  rows: RowSpec[];
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template literal
const DATASOURCE = { type: "prometheus", uid: "${datasource}" };
const PANEL_HEIGHT = 8;

function panelJson(p: PanelSpec, id: number, x: number, y: number, width: number): Record<string, unknown> {
  const refIds = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  return {
    id,
    type: p.type,
    title: p.title,
    description: p.description,
    datasource: DATASOURCE,
    gridPos: { x, y, w: width, h: PANEL_HEIGHT },
    targets: p.queries.map((q, i) => ({
      datasource: DATASOURCE,
      refId: refIds[i],
      expr: q.expr,
      ...(q.legend !== undefined ? { legendFormat: q.legend } : {}),
      ...(q.instant ? { instant: true, range: false, format: "table" } : { range: true }),
    })),
    fieldConfig: {
      defaults: {
        unit: p.unit ?? "short",
        ...(p.stacked ? { custom: { stacking: { mode: "normal" }, fillOpacity: 30 } } : {}),
      },
      overrides: [],
    },
    options:
      p.type === "timeseries"
        ? { legend: { displayMode: "table", placement: "bottom", calcs: ["lastNotNull", "max"] } }
        : p.type === "table"
          ? { showHeader: true }
          : { reduceOptions: { calcs: ["lastNotNull"] } },
    ...(p.type === "table" ? { transformations: [{ id: "merge" }] } : {}),
  };
}

/** The dashboard's JSON model. */
export function dashboard(spec: DashboardSpec): Record<string, unknown> {
  const panels: Record<string, unknown>[] = [];
  let id = 1;
  let y = 0;
  for (const row of spec.rows) {
    panels.push({
      id: id++,
      type: "row",
      title: row.title,
      collapsed: false,
      gridPos: { x: 0, y, w: 24, h: 1 },
    });
    y += 1;
    let x = 0;
    for (const p of row.panels) {
      const width = p.width ?? 8;
      if (x + width > 24) {
        x = 0;
        y += PANEL_HEIGHT;
      }
      panels.push(panelJson(p, id++, x, y, width));
      x += width;
    }
    y += PANEL_HEIGHT;
  }
  return {
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: spec.tags,
    editable: true,
    schemaVersion: 39,
    time: { from: "now-6h", to: "now" },
    refresh: "1m",
    timezone: "browser",
    templating: {
      list: [
        {
          name: "datasource",
          label: "Data source",
          type: "datasource",
          query: "prometheus",
          current: {},
          hide: 0,
        },
      ],
    },
    annotations: { list: [] },
    panels,
  };
}

/** Every query of a dashboard, with the title of its panel. */
export function dashboardQueries(spec: DashboardSpec): Array<{ panel: string; expr: string }> {
  return spec.rows.flatMap((r) =>
    r.panels.flatMap((p) => p.queries.map((q) => ({ panel: p.title, expr: q.expr }))),
  );
}
