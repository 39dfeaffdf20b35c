/**
 * Module hooks that let a plain `node` child process run this repository's TypeScript sources (with
 * `--experimental-transform-types`): `@kyverno-ts/<pkg>` resolves to `packages/<pkg>/src/index.ts` and
 * a relative `.js` import from a `.ts` file to the `.ts` file beside it. Used by the end-to-end tests
 * to start real `kyverno-ts admission` processes from the current sources, without a build.
 */
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

const packages = new URL("../../../", import.meta.url);

registerHooks({
  resolve(specifier, context, next) {
    const pkg = /^@kyverno-ts\/([a-z-]+)$/.exec(specifier);
    if (pkg) {
      const url = new URL(`${pkg[1]}/src/index.ts`, packages);
      if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
    }
    const parent = context.parentURL;
    if (parent?.endsWith(".ts") && /^\.\.?\//.test(specifier) && specifier.endsWith(".js")) {
      const url = new URL(`${specifier.slice(0, -3)}.ts`, parent);
      if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
    }
    return next(specifier, context);
  },
});
