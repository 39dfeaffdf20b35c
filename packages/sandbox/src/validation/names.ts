/** Kubernetes name, label and annotation validation with apimachinery's messages. */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Why `name` is not a valid RFC 1123 label (namespaces), or `[]`. */
export function dns1123Label(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 63) errs.push("must be no more than 63 characters");
  if (!DNS1123_LABEL.test(name))
    errs.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  return errs;
}

/** Why `name` is not a valid RFC 1123 subdomain (most kinds), or `[]`. */
export function dns1123Subdomain(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 253) errs.push("must be no more than 253 characters");
  if (!DNS1123_SUBDOMAIN.test(name))
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  return errs;
}

/** Why `name` is not a valid RFC 1035 label (services), or `[]`. */
export function dns1035Label(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 63) errs.push("must be no more than 63 characters");
  if (!DNS1035_LABEL.test(name))
    errs.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  return errs;
}

/** Why `name` is not a valid path segment (RBAC kinds), or `[]`. */
export function pathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const bad = ["/", "%"].find((c) => name.includes(c));
  return bad === undefined ? [] : [`may not contain '${bad}'`];
}

/** Why `key` is not a valid label/annotation key (`prefix/name`), or `[]`. */
export function qualifiedName(key: string): string[] {
  const parts = key.split("/");
  let name = key;
  const errs: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix === "") errs.push("prefix part must be non-empty");
    else if (dns1123Subdomain(prefix).length > 0)
      errs.push(`prefix part ${dns1123Subdomain(prefix).join(", ")}`);
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name === "") errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push("name part must be no more than 63 characters");
  if (name !== "" && !QUALIFIED_NAME_PART.test(name))
    errs.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  return errs;
}

/** Why `value` is not a valid label value, or `[]`. */
export function labelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!LABEL_VALUE.test(value))
    errs.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  return errs;
}
