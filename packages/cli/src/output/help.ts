/** Descriptions and examples shown by `--help`, kept together with the other user-visible text. */
export const Help = {
  root: {
    description:
      "kyverno-ts: Kyverno policies, evaluated in TypeScript.\nApply kyverno.io/v1 policies to manifests, run kyverno-test.yaml suites and try JMESPath.",
    examples: `
Examples:
  $ kyverno-ts apply policies/ --resource manifests/
  $ kyverno-ts test ./tests
  $ kyverno-ts jp query -i pod.yaml 'spec.containers[].image'

Exit status: 0 all good, 1 policy failures / failing test lines, 2 input errors (bad YAML, unknown field, missing file).`,
  },
  apply: {
    description:
      "Apply policies on resources, as 'kyverno apply' does: every policy is evaluated on every resource,\nfailures are listed per policy and resource, then 'pass: N, fail: N, warn: N, error: N, skip: N'.\nExits 1 when any rule fails or errors.",
    examples: `
Examples:
  # Apply a policy and a folder of policies on two resources
  $ kyverno-ts apply policy.yaml policies/ --resource=pod.yaml --resource=deploy.yaml

  # Apply on a folder of resources, as a table with messages
  $ kyverno-ts apply policies/ -r manifests/ -t --detailed-results

  # Variables on the command line, or in a values file; user info for subjects/roles
  $ kyverno-ts apply policy.yaml -r pod.yaml --set request.operation=UPDATE,env=prod
  $ kyverno-ts apply policy.yaml -r pod.yaml -f values.yaml -u user_info.yaml

  # Resources from stdin
  $ kustomize build overlays/prod | kyverno-ts apply policies/ --resource -

  # Print a PolicyReport; or only the report, as JSON, for scripts
  $ kyverno-ts apply policies/ -r manifests/ --policy-report
  $ kyverno-ts apply policies/ -r manifests/ -o json

  # Treat Audit failures as warnings, exiting 3 on warnings
  $ kyverno-ts apply policies/ -r manifests/ --audit-warn --warn-exit-code 3`,
    noCluster:
      "--cluster is not supported: kyverno-ts applies policies to files; export resources with kubectl get -o yaml",
  },
  test: {
    description:
      "Run tests declared in kyverno-test.yaml files (cli.kyverno.io/v1alpha1 Test), as 'kyverno test' does:\nthe policies are applied to the resources and each expected result line is compared with the actual result.\nExits 1 when any line fails, 2 when a test cannot be loaded.",
    examples: `
Examples:
  # Run every kyverno-test.yaml under the current folder (hidden folders such as .kyverno-test included)
  $ kyverno-ts test .

  # Only some cases
  $ kyverno-ts test . --test-case-selector "policy=disallow-latest-tag, rule=require-image-tag, resource=*"

  # Show only failures, with rule messages
  $ kyverno-ts test tests/ --fail-only --detailed-results

  # Machine output: one JSON object {"results": [...], "summary": {...}}; or JUnit XML for CI
  $ kyverno-ts test tests/ -o json
  $ kyverno-ts test tests/ --junit-path report.xml`,
  },
  jp: {
    description: "JMESPath (community dialect) with Kyverno's custom functions.",
    examples: `
Examples:
  $ kyverno-ts jp function
  $ kyverno-ts jp query -i object.yaml 'request.object.metadata.name | truncate(@, \`9\`)'
  $ kyverno-ts jp parse 'request.object.metadata.name | truncate(@, \`9\`)'`,
    queryExamples: `
Examples:
  $ kyverno-ts jp query -i pod.json 'spec.containers[0].name' -u
  $ echo '{"foo": "BAR"}' | kyverno-ts jp query 'to_lower(foo)'
  $ kyverno-ts jp query -i object.yaml -q query-file`,
    functionExamples: `
Examples:
  $ kyverno-ts jp function
  $ kyverno-ts jp function truncate`,
    parseExamples: `
Examples:
  $ kyverno-ts jp parse 'request.object.metadata.name | truncate(@, \`9\`)'
  $ kyverno-ts jp parse -f my-file`,
  },
  version: {
    examples: `
Examples:
  $ kyverno-ts version`,
  },
} as const;
