// What a projection request may give the display's RDP client, carried in
// the `project` message's `settings` (docs/kiosk-protocol.md). Only what the
// client supports; `avc420`/`avc444` (GFX H.264) are wishes the display grants
// only when its browser's WebCodecs decoder can decode them. One shape,
// read two ways: strictly where the gateway takes a request (an unknown
// setting is refused there), leniently in the message (unknown fields are
// ignored, so an older display still reads a newer gateway's `project`).
// zod/mini: the page bundles these schemas, and classic zod weighs about
// 750 KB there; its schemas still compose with the gateway's classic ones.
import * as z from 'zod/mini';

const performanceShape = {
  wallpaper: z.optional(z.boolean()),
  fullWindowDrag: z.optional(z.boolean()),
  menuAnimations: z.optional(z.boolean()),
  themes: z.optional(z.boolean()),
};

const settingsShape = {
  colorDepth: z.optional(z.union([z.literal(16), z.literal(24), z.literal(32)])),
  gfx: z.optional(z.boolean()),
  codecs: z.optional(z.array(z.enum(['planar', 'remotefx', 'progressive', 'avc420', 'avc444'])).check(z.maxLength(5))),
};

/** The settings a projection request may carry; unknown keys are refused. */
export const sessionSettingsSchema = z.strictObject({
  ...settingsShape,
  /** Desktop effects; false asks the server to leave one out (saves bandwidth). */
  performance: z.optional(z.strictObject(performanceShape)),
});

export type SessionSettings = z.infer<typeof sessionSettingsSchema>;

export const assistanceSettingsSchema = z.object({ invitation: z.string(), password: z.string() });

/** A Remote Assistance invitation for the client, as the `project` message carries it. */
export type AssistanceSettings = z.infer<typeof assistanceSettingsSchema>;

/** `project.settings`: the request's settings and, when it answers one, the invitation. */
export const projectSettingsSchema = z.object({
  ...settingsShape,
  performance: z.optional(z.object(performanceShape)),
  assistance: z.optional(assistanceSettingsSchema),
});

export type ProjectSettings = z.infer<typeof projectSettingsSchema>;
