/**
 * The policy details routes (the Policy Reporter Kyverno plugin's `/policies` API, served by the
 * reporter itself): `/v2/policy-details` lists the watched Kyverno policies, `/v2/policy-details/:name`
 * is one ClusterPolicy and `/v2/policy-details/:namespace/:name` one Policy, so the name a result
 * carries (`name` or `namespace/name`) is the path. Unknown policies and a reporter that watches no
 * policies answer 404, told apart by `code`.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ReporterErrorCode } from "../errors.js";
import type { ApiError, PolicyDetails, PolicyDetailsKind, PolicyDetailsList } from "./contract.js";
import { policyDetailsParams, policyDetailsResponses } from "./schemas.js";

/** Where the routes read policy details from (the policy catalog). */
export interface PolicyDetailsSource {
  /** The kinds watched; empty when none are. */
  watched(): readonly PolicyDetailsKind[];
  /** A policy by the name results use. */
  get(policy: string): PolicyDetails | undefined;
  list(): PolicyDetailsList["items"];
}

type Params = { name: string; namespace?: string };

function notFound(reply: FastifyReply, source: PolicyDetailsSource | undefined, policy: string) {
  const watched = source?.watched() ?? [];
  const body: ApiError =
    watched.length === 0
      ? {
          statusCode: 404,
          code: "POLICY_DETAILS_UNAVAILABLE" satisfies ReporterErrorCode,
          error: "Not Found",
          message:
            "policy details are not available: this reporter watches no Kyverno policies (it runs outside a cluster, or the cluster does not serve kyverno.io/v1)",
        }
      : {
          statusCode: 404,
          code: "POLICY_NOT_FOUND" satisfies ReporterErrorCode,
          error: "Not Found",
          message: `no ${watched.join(" or ")} named ${JSON.stringify(policy)} is known to the reporter`,
        };
  return reply.code(404).send(body);
}

/** Registers the policy details routes; without a source every lookup is a 404 saying so. */
export function registerPolicyDetailsRoutes(
  app: FastifyInstance,
  source: PolicyDetailsSource | undefined,
): void {
  app.get(
    "/v2/policy-details",
    { schema: { response: { 200: policyDetailsResponses.list } } },
    async (): Promise<PolicyDetailsList> => ({
      watched: [...(source?.watched() ?? [])],
      items: source?.list() ?? [],
    }),
  );
  const one = async (req: { params: Params }, reply: FastifyReply) => {
    const { namespace, name } = req.params;
    const policy = namespace !== undefined ? `${namespace}/${name}` : name;
    const found = source?.get(policy);
    return found ?? notFound(reply, source, policy);
  };
  const schema = { params: policyDetailsParams, response: { 200: policyDetailsResponses.details } };
  app.get<{ Params: Params }>("/v2/policy-details/:name", { schema }, one);
  app.get<{ Params: Params }>("/v2/policy-details/:namespace/:name", { schema }, one);
}
