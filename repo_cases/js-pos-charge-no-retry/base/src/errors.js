// @ts-check

export class AcquirerError extends Error {
  /**
   * @param {string} message
   * @param {{ code: string, retryable: boolean }} info
   */
  constructor(message, info) {
    super(message);
    this.name = 'AcquirerError';
    this.code = info.code;
    this.retryable = info.retryable;
  }
}

export class TimeoutError extends AcquirerError {
  /** @param {string} what */
  constructor(what) {
    super(`${what} timed out`, { code: 'timeout', retryable: true });
    this.name = 'TimeoutError';
  }
}
