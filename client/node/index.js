// arbiter-client: the Node client of the Arbiter collision service.
export { ArbiterClient, ArbiterError } from './client.js';
export { listFleetWorlds, migrateWorld, resumeMigration, thawWorld } from './fleet.js';
export {
  body, box, capsule, chain, circle, distanceQuery, moveClaim, polygon, ray, segment, shapeMove, shapeQuery, shot, vec2,
} from './shapes.js';
export { fixedFromDouble, fromUnits, rawOf, toUnits, RAW_MAX, RAW_MIN } from './units.js';
