// @ts-check

/** Message templates by key and locale. */
export const CATALOG = {
  order_shipped: {
    en: 'Hi {{first_name}}, your order {{order_no}} from {{store}} is on its way. Track it: {{tracking_url}}',
    de: 'Hallo {{first_name}}, deine Bestellung {{order_no}} von {{store}} ist unterwegs: {{tracking_url}}',
  },
  pickup_ready: {
    en: '{{store}}: your order {{order_no}} is ready for pickup until {{until}}. Show code {{code}}.',
    de: '{{store}}: Bestellung {{order_no}} liegt bis {{until}} zur Abholung bereit. Code {{code}}.',
  },
  login_code: {
    en: '{{code}} is your {{store}} sign-in code. It expires in 10 minutes.',
    de: '{{code}} ist dein Anmeldecode für {{store}}. Er läuft in 10 Minuten ab.',
  },
};

/**
 * @param {string} key
 * @param {string} locale  e.g. de-AT; falls back to the language, then to English
 */
export function lookup(key, locale) {
  if (!Object.hasOwn(CATALOG, key)) throw new Error(`unknown message ${key}`);
  const entry = /** @type {Record<string, string>} */ (CATALOG[/** @type {keyof typeof CATALOG} */ (key)]);
  const lang = locale.toLowerCase().split('-')[0];
  return entry[locale.toLowerCase()] ?? entry[lang] ?? entry.en;
}
