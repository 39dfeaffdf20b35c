/**
 * The server-rendered pages of the login: the sign-in page (OpenID Connect button and / or the
 * basic-auth form) and the "access denied" page. Self-contained HTML (inline CSS, no script), in
 * light and dark colour schemes, readable without the dashboard's assets.
 */

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
:root{color-scheme:light dark;--bg:#f8f9fa;--card:#fff;--fg:#212529;--muted:#495057;--accent:#3b5bdb;--border:#ced4da;--error:#c92a2a}
@media (prefers-color-scheme:dark){:root{--bg:#1a1b1e;--card:#25262b;--fg:#e9ecef;--muted:#c1c2c5;--accent:#748ffc;--border:#495057;--error:#ff8787}}
*{box-sizing:border-box}body{margin:0;min-height:100vh;display:grid;place-items:center;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:min(400px,92vw);background:var(--card);border:1px solid var(--border);border-radius:10px;padding:32px}
h1{font-size:24px;margin:0 0 4px}p{margin:0 0 20px;color:var(--muted)}
label{display:block;font-weight:600;margin:12px 0 4px}input{width:100%;padding:9px 10px;border:1px solid var(--border);border-radius:6px;background:var(--card);color:var(--fg);font:inherit}
button,.button{display:block;width:100%;margin-top:20px;padding:10px;border:0;border-radius:6px;background:var(--accent);color:#fff;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
@media (prefers-color-scheme:dark){button,.button{color:#000}}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.or{margin:20px 0 0;text-align:center}.error{color:var(--error);font-weight:600;margin:12px 0 0}`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Policy Reporter</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** What the sign-in page offers. */
export interface LoginPageOptions {
  /** The OpenID Connect start URL (relative), when configured. */
  oidcUrl?: string;
  /** Whether the username / password form is shown. */
  basic: boolean;
  /** The hash route to return to, carried through the form. */
  returnTo: string;
  /** A message shown above the form (wrong credentials, expired login). */
  error?: string;
}

/** The sign-in page. */
export function loginPage(options: LoginPageOptions): string {
  const parts = [`<h1>Policy Reporter</h1><p>Sign in to see your cluster's policy results.</p>`];
  if (options.error) parts.push(`<p class="error" role="alert">${escapeHtml(options.error)}</p>`);
  if (options.oidcUrl) {
    const href = `${options.oidcUrl}${options.returnTo ? `?returnTo=${encodeURIComponent(options.returnTo)}` : ""}`;
    parts.push(`<a class="button" href="${escapeHtml(href)}">Sign in with OpenID Connect</a>`);
  }
  if (options.oidcUrl && options.basic) parts.push(`<p class="or">or</p>`);
  if (options.basic) {
    parts.push(
      `<form method="post" action="login">`,
      `<input type="hidden" name="returnTo" value="${escapeHtml(options.returnTo)}">`,
      `<label for="username">Username</label><input id="username" name="username" autocomplete="username" required>`,
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>`,
      `<button type="submit">Sign in</button></form>`,
    );
  }
  return layout("Sign in", parts.join(""));
}

/** The page of a signed-in user whom the access control does not admit. */
export function forbiddenPage(user: { name: string; email: string }): string {
  const who = user.email && user.email !== user.name ? `${user.name} (${user.email})` : user.name;
  return layout(
    "Access denied",
    `<h1>Access denied</h1><p role="alert">You are signed in as <strong>${escapeHtml(who)}</strong>, but this account is not allowed to view this Policy Reporter. Ask an administrator to add your email or one of your groups to the access control.</p><form method="post" action="logout"><button type="submit">Sign out</button></form>`,
  );
}

/** The page shown when the provider's answer cannot be used. */
export function loginFailedPage(reason: string): string {
  return layout(
    "Sign-in failed",
    `<h1>Sign-in failed</h1><p role="alert">${escapeHtml(reason)}</p><a class="button" href="login">Try again</a>`,
  );
}

/**
 * Answers a page request without a session: the browser goes to the sign-in page, keeping the
 * dashboard route of the URL's fragment (which never reaches the server) as `returnTo`.
 */
export function signInRedirectPage(loginPath: string): string {
  const target = JSON.stringify(loginPath);
  return layout(
    "Sign in",
    `<h1>Policy Reporter</h1><p>Sign in to continue.</p><a class="button" href="${escapeHtml(loginPath)}">Sign in</a><script>location.replace(${target}+(location.hash.indexOf("#/")===0?"?returnTo="+encodeURIComponent(location.hash):""))</script>`,
  );
}
