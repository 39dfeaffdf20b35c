/** Paths of the dashboard's pages (hash routes), built in one place. */

const seg = encodeURIComponent;

/** The route patterns of the pages (react-router syntax), shared by the router and the preloader. */
export const ROUTES = {
  dashboard: "/",
  source: "/sources/:source",
  namespaces: "/namespaces",
  namespace: "/namespaces/:namespace",
  resource: "/resources/:id",
  policies: "/policies",
  policy: "/policies/:source/:policy",
  targets: "/targets",
} as const;

/** Links to each page. */
export const paths = {
  dashboard: () => "/",
  source: (source: string) => `/sources/${seg(source)}`,
  namespaces: () => "/namespaces",
  namespace: (namespace: string) => `/namespaces/${seg(namespace)}`,
  resource: (id: string) => `/resources/${seg(id)}`,
  policies: () => "/policies",
  policy: (source: string, policy: string) => `/policies/${seg(source)}/${seg(policy)}`,
  targets: () => "/targets",
};
