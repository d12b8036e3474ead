// Minimal declarations for the Node built-ins the tests use (the project installs no @types packages).

declare module 'node:test' {
  interface TestContext {
    readonly name: string;
    skip(message?: string): void;
    todo(message?: string): void;
  }
  type TestBody = (t: TestContext) => void | Promise<void>;
  interface TestOptions {
    skip?: boolean | string;
    todo?: boolean | string;
    timeout?: number;
  }
  interface TestFunction {
    (name: string, fn: TestBody): Promise<void>;
    (name: string, options: TestOptions, fn: TestBody): Promise<void>;
  }
  const test: TestFunction;
  export default test;
  export const it: TestFunction;
  export function describe(name: string, fn: () => void): Promise<void>;
  export function beforeEach(fn: () => void | Promise<void>): void;
  export function afterEach(fn: () => void | Promise<void>): void;
}

declare module 'node:assert/strict' {
  type Expected = RegExp | Function | object | Error;
  interface Assert {
    (value: unknown, message?: string): asserts value;
    ok(value: unknown, message?: string): asserts value;
    equal(actual: unknown, expected: unknown, message?: string): void;
    notEqual(actual: unknown, expected: unknown, message?: string): void;
    deepEqual(actual: unknown, expected: unknown, message?: string): void;
    notDeepEqual(actual: unknown, expected: unknown, message?: string): void;
    match(value: string, pattern: RegExp, message?: string): void;
    doesNotMatch(value: string, pattern: RegExp, message?: string): void;
    throws(fn: () => unknown, expected?: Expected, message?: string): void;
    doesNotThrow(fn: () => unknown, message?: string): void;
    rejects(fn: Promise<unknown> | (() => Promise<unknown>), expected?: Expected, message?: string): Promise<void>;
    doesNotReject(fn: Promise<unknown> | (() => Promise<unknown>), message?: string): Promise<void>;
    fail(message?: string): never;
  }
  const assert: Assert;
  export default assert;
}
