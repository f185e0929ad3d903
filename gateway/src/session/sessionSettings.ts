import { z } from 'zod';

/**
 * Settings a projection request may give the display's RDP client, passed
 * through in the `project` message (docs/kiosk-protocol.md). Only what the
 * client supports: no AVC/H.264 codec until the kiosk decodes it.
 */
export const sessionSettingsSchema = z.strictObject({
  colorDepth: z.union([z.literal(16), z.literal(24), z.literal(32)]).optional(),
  gfx: z.boolean().optional(),
  codecs: z.array(z.enum(['planar', 'remotefx', 'progressive'])).max(3).optional(),
  /** Desktop effects; false asks the server to leave one out (saves bandwidth). */
  performance: z.strictObject({
    wallpaper: z.boolean().optional(),
    fullWindowDrag: z.boolean().optional(),
    menuAnimations: z.boolean().optional(),
    themes: z.boolean().optional(),
  }).optional(),
});

export type SessionSettings = z.infer<typeof sessionSettingsSchema>;

/** A Remote Assistance invitation for the client, as the `project` message carries it. */
export interface AssistanceSettings { readonly invitation: string; readonly password: string }
