/** Paths of the dashboard's pages (hash routes), built in one place. */

const seg = encodeURIComponent;

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
