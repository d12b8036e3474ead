// @ts-check

// GSM 03.38 basic character set and the extension table (extension chars cost two septets).
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const EXTENDED = '^{}\\[~]|€\f';

/**
 * @param {string} text
 * @returns {{ encoding: 'GSM-7' | 'UCS-2', units: number, segments: number }}
 */
export function measure(text) {
  let septets = 0;
  for (const ch of text) {
    if (BASIC.includes(ch)) septets += 1;
    else if (EXTENDED.includes(ch)) septets += 2;
    else {
      const units = text.length; // UTF-16 code units
      return { encoding: 'UCS-2', units, segments: units <= 70 ? 1 : Math.ceil(units / 67) };
    }
  }
  return { encoding: 'GSM-7', units: septets, segments: septets <= 160 ? 1 : Math.ceil(septets / 153) };
}
