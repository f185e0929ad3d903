import { animationScenePlan } from './animationScene.js';
import { clapperboardScenePlan } from './clapperboardScene.js';
import { referenceScenePlan } from './referenceScene.js';
import { slideScenePlan } from './slideScene.js';
import type { SceneName, ScenePlan, SceneTarget } from './scenePlan.js';
import { terminalScenePlan } from './terminalScene.js';

export function planScene(name: SceneName, target: SceneTarget): ScenePlan {
  switch (name) {
    case 'reference': return referenceScenePlan(target);
    case 'slide': return slideScenePlan(target);
    case 'terminal': return terminalScenePlan(target);
    case 'animation': return animationScenePlan(target);
    case 'clapperboard': return clapperboardScenePlan(target);
  }
}
