// @ts-check

/**
 * Every preference a user can set, with its default. The shape of this object is the schema:
 * overrides may only set keys that exist here, with values of the same type.
 */
export const DEFAULT_PREFS = Object.freeze({
  locale: 'en-GB',
  timezone: 'Europe/London',
  display: { theme: 'system', density: 'comfortable', reduceMotion: false },
  notifications: {
    email: { mentions: true, digest: 'weekly', productNews: false },
    push: { mentions: true, reminders: true },
    quietHours: { enabled: false, from: '22:00', to: '07:00' },
  },
});

/** @typedef {typeof DEFAULT_PREFS} Prefs */

/** Allowed values for enumerated string preferences, by dotted path. */
export const ENUMS = {
  'display.theme': ['system', 'light', 'dark'],
  'display.density': ['comfortable', 'compact'],
  'notifications.email.digest': ['off', 'daily', 'weekly'],
};
