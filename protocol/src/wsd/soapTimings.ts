import { SOAP_OVER_UDP } from './wsdConstants.js';

/**
 * When each copy of a SOAP-over-UDP message goes out, in ms after the first
 * (which goes at 0): the first gap is random in [min, max], each later one
 * doubles, capped at upper. `random` returns [0, 1).
 */
export function repetitionSchedule(multicast: boolean, random: () => number): number[] {
  const copies = multicast ? SOAP_OVER_UDP.multicastRepeat : SOAP_OVER_UDP.unicastRepeat;
  const { minDelayMs, maxDelayMs, upperDelayMs } = SOAP_OVER_UDP;
  const times = [0];
  let gap = minDelayMs + Math.floor(random() * (maxDelayMs - minDelayMs + 1));
  let at = 0;
  for (let i = 1; i < copies; i++) {
    at += gap;
    times.push(at);
    gap = Math.min(gap * 2, upperDelayMs);
  }
  return times;
}
