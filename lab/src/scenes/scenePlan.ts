import type { ReadinessCheck } from '../process/readiness.js';

export type SceneName = 'reference' | 'slide' | 'terminal' | 'animation' | 'clapperboard';

export const SCENE_NAMES: readonly SceneName[] = ['reference', 'slide', 'terminal', 'animation', 'clapperboard'];

/** One program a scene runs on the display. */
export interface SceneStep {
  component: string;
  command: string;
  args: readonly string[];
  /** 'daemon' keeps running for the scene's life; 'once' must finish (exit code in okExitCodes). */
  lifetime: 'daemon' | 'once';
  okExitCodes?: readonly number[];
  ready?: ReadinessCheck;
}

/**
 * What a scene needs, as data: files to write, whether a window manager must
 * run, then the programs in order. The same plan drives a lab display
 * (supervised children, readiness checks) and an xrdp session (a shell
 * script that sesman runs as the test user).
 */
export interface ScenePlan {
  name: SceneName;
  files: readonly { path: string; content: Buffer | string }[];
  needsWindowManager: boolean;
  /**
   * The scene plays sound itself (the clapperboard): an xrdp session starts
   * its sound server for it, and `logPath` is where the scene's program (and
   * the sound server) say how it goes.
   */
  sound?: { readonly logPath: string };
  steps: readonly SceneStep[];
}

export interface SceneTarget {
  /** X display name, ':N'. */
  display: string;
  width: number;
  height: number;
  /** A directory for the scene's files, readable by the user the scene runs as. */
  workDir: string;
}

/**
 * Stands for the display in plans rendered as a session script: an xrdp
 * session's display number is only known when the session starts.
 */
export const SESSION_DISPLAY = '${DISPLAY}';

/** Shell-quotes one word for /bin/sh; SESSION_DISPLAY inside it stays a live expansion. */
export function shellQuote(word: string): string {
  if (word.includes(SESSION_DISPLAY)) {
    const escape = (part: string): string => part.replaceAll(/(["\\$`])/g, '\\$1');
    return `"${word.split(SESSION_DISPLAY).map(escape).join(SESSION_DISPLAY)}"`;
  }
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The plan as a /bin/sh script for an X session: sesman runs it and ends the
 * session when it exits, so it waits on its daemons forever. `prelude` lines
 * run first (the session's sound server, xrdpSound.ts).
 */
export function renderSessionScript(plan: ScenePlan, prelude: readonly string[] = []): string {
  const lines = ['#!/bin/sh', `# lanterna lab: scene '${plan.name}' for an xrdp session (generated)`, ...prelude];
  if (plan.needsWindowManager) lines.push('openbox --sm-disable &', 'sleep 1');
  for (const step of plan.steps) {
    const command = [step.command, ...step.args].map(shellQuote).join(' ');
    lines.push(step.lifetime === 'daemon' ? `${command} &` : command);
  }
  lines.push('exec sleep infinity', '');
  return lines.join('\n');
}
