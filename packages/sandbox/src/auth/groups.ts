/** The groups kube-apiserver adds to every authenticated user (and to ServiceAccounts). */

const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** The groups kube-apiserver assigns to a user on top of the configured ones. */
export function effectiveGroups(username: string, groups: readonly string[]): string[] {
  const out = [...groups];
  const sa = SERVICE_ACCOUNT.exec(username);
  if (sa !== null) out.push("system:serviceaccounts", `system:serviceaccounts:${sa[1]}`);
  out.push("system:authenticated");
  return [...new Set(out)];
}
