/**
 * `@kyverno-ts/testing`: test helpers shared across packages (a declared devDependency, never a
 * runtime one): the real kubectl against a sandbox or the chart's cluster, and Debian's chromium
 * through playwright-core for the dashboard's browser tests. Each package's own test set-up stays
 * in its `testing/` folder.
 */
export { CHROMIUM, hasChromium, launchBrowser, openBrowserPage, settler } from "./browser.js";
export {
  blockingRules,
  type KubectlResult,
  KYVERNO_CRDS,
  kubectlAvailable,
  kubectlFor,
  NO_KUBECTL,
} from "./kubectl.js";
