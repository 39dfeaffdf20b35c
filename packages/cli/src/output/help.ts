/** Descriptions and examples shown by `--help`, kept together with the other user-visible text. */
export const Help = {
  root: {
    description:
      "kyverno-ts: Kyverno policies, evaluated in TypeScript.\n\nApply kyverno.io/v1 policies (validate, mutate, generate) to manifests, run kyverno-test.yaml suites, create PolicyExceptions, print the bundled policy set and try JMESPath.",
    examples: `
Examples:
  $ kyverno-ts apply policies/ --resource manifests/
  $ kyverno-ts test ./tests
  $ kyverno-ts create exception allow-debug --policy-rules disallow-privileged-containers,privileged-containers --any "kind=Pod,namespace=debug"
  $ kyverno-ts bundle --action Enforce > production-policies.yaml
  $ kyverno-ts jp query -i pod.yaml 'spec.containers[].image'

Exit status: 0 all good, 1 policy failures / failing test lines, 2 input errors (bad YAML, unknown field, missing file).`,
  },
  apply: {
    description:
      "Apply policies on resources, as 'kyverno apply' does. For each resource: the mutate rules of every policy, in order (each policy sees the previous policies' patches), mutate-existing rules on --target-resource objects, the validate rules on the mutated resource, then the generate rules (clone sources from --cluster-resource). " +
      "Mutated and generated resources are printed (or written with -o <path>), failures and errors are listed per policy and resource, then 'pass: N, fail: N, warn: N, error: N, skip: N' (rules of every type). " +
      "Exits 1 when any rule fails or errors (a bad patch, a missing clone source), 2 on input errors.\n\n" +
      "-o/--output: 'json' or 'yaml' prints only the policy report (machine output). Any other value is a path where the mutated and generated resources are written instead of printed: an existing folder, or a path not ending in .yaml/.yml/.json, is a folder (created if needed) with one <name>-mutated.yaml or <name>-generated.yaml per resource; a .yaml path is one multi-document file (replaced).",
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
  $ kyverno-ts apply policies/ -r manifests/ --audit-warn --warn-exit-code 3

  # Mutate policies: write the mutated resources into a folder (one file each), or one YAML file
  $ kyverno-ts apply mutate-policy.yaml -r manifests/ -o mutated/
  $ kyverno-ts apply mutate-policy.yaml -r pod.yaml -o mutated-pod.yaml

  # Mutate-existing rules patch target resources; generate rules clone from cluster resources
  $ kyverno-ts apply policy.yaml -r trigger-cm.yaml --target-resource secret.yaml
  $ kyverno-ts apply sync-secret.yaml -r namespace.yaml --cluster-resource regcred-secret.yaml

  # PolicyExceptions, accepted only from some namespaces (an ignored exception is reported)
  $ kyverno-ts apply policies/ -r manifests/ -e exceptions/ --exception-namespace kyverno,team-*`,
    noCluster:
      "--cluster is not supported: kyverno-ts applies policies to files; export resources with kubectl get -o yaml",
  },
  test: {
    description:
      "Run tests declared in kyverno-test.yaml files (cli.kyverno.io/v1alpha1 Test), as 'kyverno test' does: the policies are applied to the resources (mutate, then validate on the mutated resource, then generate) and each expected result line is compared with the actual result. " +
      "A line with patchedResources also compares the mutated resource (or mutate-existing target, from targetResources) with its entry in that file, and a line with generatedResource the generated resource, after dropping nulls and empty values (and Kyverno's generate.kyverno.io labels). " +
      "Clone sources come from the test's resources, clusterResources and cloneSourceResource files; exceptions from its exceptions files.\n\n" +
      "Exits 1 when any line fails, 2 when a test cannot be loaded.",
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
  create: {
    description: "Create Kyverno resources from the command line, as 'kyverno create' does.",
    exception:
      "Print a kyverno.io/v2 PolicyException for the given policy rules and resources (as 'kyverno create exception').",
    exceptionExamples: `
Examples:
  # Except Pods and Deployments named test-* from two rules of a policy
  $ kyverno-ts create exception my-exception --namespace my-ns --policy-rules "policy,rule-1,rule-2" --any "kind=Pod,kind=Deployment,name=test-*"

  # Several policies; every filter of --all must hold; not for background scans; into a file
  $ kyverno-ts create exception debug-pods --policy-rules disallow-privileged-containers,privileged-containers \\
      --policy-rules require-probes,require-probes --all "kind=Pod,namespace=debug" --background false -o exception.yaml

Resource filters: kind=, name=, namespace=, operation= (CREATE, UPDATE, DELETE, CONNECT), comma-separated, keys repeatable.`,
  },
  playground: {
    description:
      "Start the local playground on this machine (what `npm start` runs): a local Kubernetes API server, the admission controller with its webhooks registered, the reports controller, and Policy Reporter with the dashboard on an SQLite file. The seven bundled policies are installed (Audit everywhere, Enforce in namespace production) and the example manifests applied through the API server: staging manifests are admitted with warnings and reported, production manifests are blocked when applied by hand and admitted when Argo CD applies them. " +
      "Prints the dashboard URL and kubectl commands to try more, then runs until Ctrl+C. State, kubeconfig and logs live in --dir, emptied at every start.",
    examples: `
Examples:
  $ kyverno-ts playground                    # dashboard on http://127.0.0.1:8080/
  $ kyverno-ts playground --port 9090 --dir /tmp/kyverno-playground
  $ kyverno-ts playground --no-examples      # policies only; apply your own manifests with kubectl
  $ kyverno-ts playground --setup-only       # start, apply, print the summary, stop (scripts, CI)`,
  },
  bundle: {
    description:
      "Print the bundled policy set (the repository's policies/*.yaml, not policies/tests/) with the failure action of every policy set to --action: Audit (staging, violations reported) or Enforce (production, violations blocked). The action is the only setting that differs between the two. Needs a checkout of the kyverno-ts repository.",
    examples: `
Examples:
  $ kyverno-ts bundle                                # the set in Audit mode
  $ kyverno-ts bundle --action Enforce | kubectl apply -f -
  $ kyverno-ts bundle --action Enforce --out build/production-policies/`,
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
