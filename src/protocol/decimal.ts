// Whole numbers typed as text (env variables, flags): plain decimal digits only. Number() also takes '0x10', '1e3',
// ' 12 ', '0b1' and '12.0', so a typo or a paste would silently bind another port or set another limit than meant.
const PLAIN_DECIMAL = /^[0-9]+$/;

/** The number `text` spells when it is plain decimal digits (leading zeros allowed); undefined otherwise. */
export function plainDecimal(text: string): number | undefined {
  return PLAIN_DECIMAL.test(text) ? Number(text) : undefined;
}

/** The rule, as an error message states it. */
export const PLAIN_DECIMAL_RULE = 'must be a whole number in plain decimal digits (0-9 only: no sign, spaces, 0x, exponent or point)';
