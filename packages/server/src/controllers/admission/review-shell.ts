/**
 * Large reviews parsed off the serving thread (issue #17). Parsing a large AdmissionReview (a Pod of
 * thousands of containers is 100 KB and more) on the thread that accepts connections costs it about a
 * millisecond, and the parsed objects then live on its heap until the answer (promoted, collected by
 * a full garbage collection there); cloning them to a worker costs as much again. With an evaluator,
 * a large body goes to a worker as text instead:
 *
 * 1. the worker parses it and sends back the review's shell (`shellReview`): the request with its
 *    objects cut to their identity (apiVersion, kind, metadata), all that the serving thread reads to
 *    filter, select policies, record metrics and reports and answer;
 * 2. the job for the worker holds these shells and the text (`ReviewBody`); the worker parses the text
 *    again and fills the shells in place with the whole objects (`fillReviewShells`), so every part of
 *    the job that refers to them (the engine request, the subject, the review) sees the whole object.
 */
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import { type ParsedReview, parseAdmissionReview, type ReviewParse } from "./review.js";

/** A large review's text, sent with a job whose objects are shells (see the module comment). */
export interface ReviewBody {
  text: string;
  /** The shell of `request.object` the job holds, if any. */
  object?: KubeObject;
  /** The shell of `request.oldObject` the job holds, if any. */
  oldObject?: KubeObject;
}

/** True when an evaluator parses large reviews (the evaluation pool does). */
export function parsesReviews<E extends { parseReview?: unknown }>(
  evaluator: E | undefined,
): evaluator is E & Required<Pick<E, "parseReview">> {
  return evaluator?.parseReview !== undefined;
}

/** Bodies of at least this many characters are parsed in a worker when there is one. */
export const LARGE_REVIEW_CHARS = 32 * 1024;

/** An object cut to its identity: apiVersion, kind and metadata. */
function shellOf(object: KubeObject): KubeObject {
  const shell: KubeObject = { apiVersion: object.apiVersion, kind: object.kind } as KubeObject;
  if (object.metadata !== undefined) shell.metadata = object.metadata;
  return shell;
}

/**
 * Parses a body (in a worker) into its shell: the review with `request.object` and `request.oldObject`
 * cut to their identity; `object` and `oldObject` are the same shells, as in the parsed review.
 */
export function shellReview(text: string): ReviewParse {
  const parsed = parseAdmissionReview(text);
  if (!parsed.ok) return parsed;
  const { request, object, oldObject } = parsed.review;
  const shells = new Map<KubeObject, KubeObject>();
  const cut = (o: KubeObject | undefined): KubeObject | undefined => {
    if (o === undefined) return undefined;
    let shell = shells.get(o);
    if (shell === undefined) {
      shell = shellOf(o);
      shells.set(o, shell);
    }
    return shell;
  };
  const shellRequest = { ...request };
  const requestObject = cut(request.object as KubeObject | undefined);
  const requestOldObject = cut(request.oldObject as KubeObject | undefined);
  if (requestObject !== undefined) shellRequest.object = requestObject as unknown as JsonValue;
  if (requestOldObject !== undefined) shellRequest.oldObject = requestOldObject as unknown as JsonValue;
  const review: ParsedReview = { request: shellRequest, object: cut(object), oldObject: cut(oldObject) };
  return { ok: true, review };
}

/** The job's `ReviewBody` for a shell review: its text and the shells to fill. */
export function reviewBody(text: string, shell: ParsedReview): ReviewBody {
  const body: ReviewBody = { text };
  const { object, oldObject } = shell.request;
  if (object !== undefined) body.object = object as KubeObject;
  if (oldObject !== undefined) body.oldObject = oldObject as KubeObject;
  return body;
}

/** Replaces `shell`'s members with `whole`'s, in place (every reference to the shell sees the object). */
function fill(shell: KubeObject | undefined, whole: unknown): void {
  if (shell === undefined || typeof whole !== "object" || whole === null) return;
  const target = shell as Record<string, unknown>;
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, whole);
}

/**
 * Fills the shells of a job (as cloned into a worker) with the whole objects parsed from its text.
 * Throws when the text no longer parses (it parsed once: a bug), which fails the job.
 */
export function fillReviewShells(body: ReviewBody): void {
  const parsed = parseAdmissionReview(body.text);
  if (!parsed.ok) throw new Error(`the review body does not parse: ${parsed.message}`);
  fill(body.object, parsed.review.request.object);
  fill(body.oldObject, parsed.review.request.oldObject);
}
