/**
 * Test-only: the few `Reflect` metadata functions tsyringe (a dependency of @peculiar/x509) insists
 * on at import time, for when no `reflect-metadata` polyfill is installed. Import it before
 * @peculiar/x509. Not part of the package API.
 */
type Target = object;

interface MetadataReflect {
  getMetadata?: (key: unknown, target: Target) => unknown;
  getOwnMetadata?: (key: unknown, target: Target) => unknown;
  defineMetadata?: (key: unknown, value: unknown, target: Target) => void;
  metadata?: (key: unknown, value: unknown) => (target: Target) => void;
}

const reflect = Reflect as unknown as MetadataReflect;
if (typeof reflect.getMetadata !== "function") {
  const store = new WeakMap<Target, Map<unknown, unknown>>();
  const own = (key: unknown, target: Target): unknown => store.get(target)?.get(key);
  const define = (key: unknown, value: unknown, target: Target): void => {
    const entries = store.get(target) ?? new Map<unknown, unknown>();
    entries.set(key, value);
    store.set(target, entries);
  };
  reflect.getOwnMetadata = own;
  reflect.defineMetadata = define;
  reflect.metadata = (key, value) => (target) => define(key, value, target);
  reflect.getMetadata = (key, target) => {
    for (let t: Target | null = target; t !== null; t = Object.getPrototypeOf(t) as Target | null) {
      const value = own(key, t);
      if (value !== undefined) return value;
    }
    return undefined;
  };
}
