// Types of arbiter-client (hand-written; checked by `tsc --noEmit` in
// run-tests.sh against test/types-check.ts). Field names are the .proto's.
//
// Raw: a Q32.32 value (world units * 2^32) as a BigInt, never a number:
// build one with fromUnits(1.5). Long: another 64-bit integer (ids, ticks,
// hashes); bigint in replies, bigint or a safe integer number in requests.

import type { ChannelCredentials } from '@grpc/grpc-js';

export type Raw = bigint;
export type LongIn = bigint | number;
export type Long = bigint;

// ---- Units -----------------------------------------------------------------------------------
export const RAW_MIN: bigint;
export const RAW_MAX: bigint;
/** Fixed::FromDouble(d).raw(): round to nearest, ties away from zero; saturates; NaN -> 0n. */
export function fixedFromDouble(d: number): Raw;
/** World units -> raw; RangeError (naming `field`) for NaN, infinities, values beyond [-2^31, 2^31). */
export function fromUnits(value: number, field?: string): Raw;
/** raw -> world units (exact when |raw| < 2^53). */
export function toUnits(raw: Raw): number;
/** `value` if it is a BigInt in the int64 range; TypeError for a number. */
export function rawOf(value: unknown, field?: string): Raw;

// ---- Geometry (geometry.proto) -------------------------------------------------------------
export interface Vec2 { x?: Raw; y?: Raw }
export interface Rot { c?: Raw; s?: Raw }
export interface Transform { position?: Vec2; rotation?: Rot }
export interface Aabb { lower?: Vec2; upper?: Vec2 }
export interface Circle { center?: Vec2; radius?: Raw }
export interface Box { half_extents?: Vec2; center?: Vec2; rotation?: Rot }
export interface Polygon { points?: Vec2[]; radius?: Raw }
export interface Capsule { center1?: Vec2; center2?: Vec2; radius?: Raw }
export interface Segment { point1?: Vec2; point2?: Vec2 }
export interface ChainSegment { ghost1?: Vec2; point1?: Vec2; point2?: Vec2; ghost2?: Vec2 }
export interface Chain { points?: Vec2[]; loop?: boolean }
export type Shape = { circle: Circle } | { box: Box } | { polygon: Polygon } | { capsule: Capsule } | { segment: Segment }
  | { chain_segment: ChainSegment } | { chain: Chain };

// ---- Bodies and worlds -----------------------------------------------------------------------
export type BodyType = 'BODY_TYPE_STATIC' | 'BODY_TYPE_KINEMATIC' | 'BODY_TYPE_DYNAMIC';
export interface Filter { category_bits?: LongIn; mask_bits?: LongIn; group_index?: number }
export interface ShapeDef {
  shape: Shape; filter?: Filter; is_sensor?: boolean; friction?: Raw; restitution?: Raw; density?: Raw; user_tag?: LongIn;
}
export interface BodyDef {
  id: LongIn; type: BodyType; transform?: Transform; linear_velocity?: Vec2; angular_velocity?: Raw;
  linear_damping?: Raw; angular_damping?: Raw; gravity_scale?: Raw; is_bullet?: boolean; shapes: ShapeDef[];
}
export interface BodyState {
  id: Long; type: BodyType; transform: Transform; linear_velocity: Vec2; angular_velocity: Raw; shape_count: number;
  /** True while the body sleeps (a world created with allow_sleep). */
  asleep: boolean;
}
export interface Velocity { linear?: Vec2; angular?: Raw }
export interface ShapeFilterUpdate { shape_index: number; filter?: Filter }
export interface BodyUpdate { body_id: LongIn; transform?: Transform; velocity?: Velocity; filters?: ShapeFilterUpdate[] }
export interface WorldInfo {
  world_id: string; gravity: Vec2; tick_hz: number; max_bodies: number; tick: Long; body_count: Long;
  state_hash?: Long; history_ticks: number; oldest_tick: Long;
  /** The ownership generation: 0 when created, one more at each freeze and each thaw of a move. */
  epoch: Long;
  /** While frozen for a move: where it is going ("host:port"); else empty. */
  moving_to: string;
  /** Resting islands sleep (CreateWorldRequest.allow_sleep). */
  allow_sleep: boolean;
  /** Solver sub-steps per tick and contact stiffness in Hz (CreateWorldRequest.sub_steps, contact_hertz). */
  sub_steps: number;
  contact_hertz: number;
}
/**
 * The optional guards of every write (arbiter.proto "Safe retries"): the
 * tick it starts from and the world's epoch as last seen on its owner. When
 * set and the world is elsewhere, the write changes nothing
 * (FAILED_PRECONDITION).
 */
export interface WriteGuards { expected_tick?: LongIn; expected_epoch?: LongIn }

export interface CreateWorldRequest {
  world_id: string; gravity?: Vec2; tick_hz?: number; max_bodies?: number; scene?: string; bodies?: BodyDef[];
  history_ticks?: number;
  /** Lets resting islands sleep; absent: the scene's setting, else off. */
  allow_sleep?: boolean;
  /** Solver sub-steps per tick, 1..32; absent: the scene's setting, else 4. */
  sub_steps?: number;
  /** Contact stiffness in Hz, 1..10000, used up to tick_hz * sub_steps / 4; absent: the scene's, else 30. */
  contact_hertz?: number;
}
export interface CreateWorldResponse { world: WorldInfo }
export interface DeleteWorldRequest { world_id: string }
export interface DeleteWorldResponse { tick: Long }
export interface ListWorldsResponse { worlds: WorldInfo[] }
export interface DescribeWorldRequest { world_id: string; include_bodies?: boolean }
export interface DescribeWorldResponse { world: WorldInfo; bodies: BodyState[] }
export interface AddBodiesRequest extends WriteGuards { world_id: string; bodies: BodyDef[] }
export interface AddBodiesResponse { tick: Long; body_count: Long }
export interface RemoveBodiesRequest extends WriteGuards { world_id: string; body_ids: LongIn[] }
export interface RemoveBodiesResponse { tick: Long; body_count: Long }
export interface UpdateBodiesRequest extends WriteGuards { world_id: string; updates: BodyUpdate[] }
export interface UpdateBodiesResponse { tick: Long }

// ---- Queries ---------------------------------------------------------------------------------
export interface PastTick { tick: LongIn; fraction?: Raw }
export interface QueryFilter {
  category_bits?: LongIn; mask_bits?: LongIn; include_sensors?: boolean; body_types?: BodyType[]; exclude_bodies?: LongIn[];
}
export type CastMode = 'CAST_MODE_CLOSEST' | 'CAST_MODE_ALL' | 'CAST_MODE_ANY';
export interface Ray { origin?: Vec2; translation?: Vec2; max_fraction?: Raw }
export interface RayColumns { origin_x?: Raw[]; origin_y?: Raw[]; translation_x?: Raw[]; translation_y?: Raw[] }
export interface Hit { body_id: Long; shape_index: number; user_tag: Long; fraction: Raw; point: Vec2; normal: Vec2 }
export interface CastResult { hit: boolean; hits: Hit[] }
export interface HitColumns {
  query_index: number[]; body_id: Long[]; shape_index: number[]; user_tag: Long[]; fraction: Raw[];
  point_x: Raw[]; point_y: Raw[]; normal_x: Raw[]; normal_y: Raw[];
}
export interface CastRaysRequest {
  world_id: string; mode: CastMode; filter?: QueryFilter; rays?: Ray[]; columns?: RayColumns; request_tag?: LongIn; at?: PastTick;
}
export interface CastRaysResponse { tick: Long; tick_fraction: Raw; results: CastResult[]; columns: HitColumns | null; request_tag: Long }
export interface ShapeQuery { shape: Shape; transform?: Transform }
export type OverlapQuery = { point: Vec2 } | { aabb: Aabb } | { shape: ShapeQuery };
export interface ShapeRef { body_id: Long; shape_index: number }
export interface OverlapRequest {
  world_id: string; filter?: QueryFilter; queries: OverlapQuery[]; at?: PastTick;
  /** Also each overlap's normal, depth and points (shape queries only). */
  want_contacts?: boolean;
}
/** The way out of an overlap: moving the query shape by -normal * depth leaves it touching. */
export interface OverlapContact {
  /** Unit, from the query shape towards the body. */
  normal: Vec2;
  /** >= 0; 0 when touching. */
  depth: Raw;
  /** 1 or 2 points midway between the surfaces. */
  points: Vec2[];
}
export interface OverlapResponse {
  tick: Long; tick_fraction: Raw;
  /** contacts[i] belongs to shapes[i] (want_contacts), else empty. */
  results: { shapes: ShapeRef[]; contacts: OverlapContact[] }[];
}
export interface DistanceQuery {
  shape: ShapeQuery;
  /** Units, raw, in [0, 2^30]. */
  max_distance?: Raw;
  /** 0..256; 0 or absent: 1. */
  max_results?: number;
}
export interface DistanceRequest { world_id: string; filter?: QueryFilter; queries: DistanceQuery[]; at?: PastTick }
export interface DistanceHit {
  body_id: Long; shape_index: number; user_tag: Long;
  /** 0 when overlapping. */
  distance: Raw;
  point_query: Vec2; point_body: Vec2;
  /** Unit, query towards body; when overlapping the contact's normal. */
  normal: Vec2;
  /** The overlap's depth; 0 when apart. */
  depth: Raw;
}
export interface DistanceResponse { tick: Long; tick_fraction: Raw; results: { hits: DistanceHit[] }[] }
export interface ShapeCast { shape: Shape; transform?: Transform; translation?: Vec2 }
export interface CastShapesRequest { world_id: string; mode: CastMode; filter?: QueryFilter; casts: ShapeCast[]; at?: PastTick }
export interface CastShapesResponse { tick: Long; tick_fraction: Raw; results: CastResult[] }
export type HitVerdict = 'HIT_VERDICT_CONFIRMED' | 'HIT_VERDICT_BLOCKED' | 'HIT_VERDICT_MISSED';
export interface ValidateHitRequest {
  world_id: string; shooter_body_id: LongIn; at?: PastTick; ray: Ray; target_body_id: LongIn; filter?: QueryFilter;
}
export interface ValidateHitResponse { tick: Long; tick_fraction: Raw; verdict: HitVerdict; first_hit: Hit | null; target_hit: Hit | null }
export type MoveVerdict = 'MOVE_VERDICT_VALID' | 'MOVE_VERDICT_CORRECTED' | 'MOVE_VERDICT_REJECTED';
/** Body `body_id` claims to be at positions[i] at tick + i + 1 (1..max_batch positions). */
export interface MoveClaim { body_id: LongIn; shape_index?: number; tick: LongIn; positions: Vec2[] }
export interface ValidateMoveRequest {
  world_id: string; claims: MoveClaim[];
  /** Units per second, raw, > 0. */
  max_speed: Raw;
  /** Units, raw, >= 0: reach slack. */
  tolerance?: Raw;
  /** Units, raw, 2^16..2^32; 0 or absent: 1/64 unit. */
  skin?: Raw;
  /** 1..16; 0 or absent: 4. */
  max_iterations?: number;
  filter?: QueryFilter;
}
/** A surface a move met. */
export interface MovePlaneHit { body_id: Long; shape_index: number; normal: Vec2; point: Vec2; pushed_out: boolean }
export interface MoveJudgement {
  body_id: Long; verdict: MoveVerdict;
  /** VALID: the last claimed tick; otherwise the tick of the failing step. */
  judged_tick: Long;
  /** The claim (VALID), the reachable position (CORRECTED) or the last accepted position (REJECTED). */
  accepted_position: Vec2;
  claimed_position: Vec2;
  reason: string;
  /** REJECTED: the claimed step's length and max_speed / tick_hz, raw units. */
  step_length: Raw; max_step: Raw;
  /** CORRECTED: what the server's move met, and whether it was blocked. */
  planes: MovePlaneHit[]; blocked: boolean;
}
export interface ValidateMoveResponse { tick: Long; judgements: MoveJudgement[] }
export type ShotVerdict = 'SHOT_VERDICT_UNSPECIFIED' | 'SHOT_VERDICT_CONFIRMED' | 'SHOT_VERDICT_BLOCKED' | 'SHOT_VERDICT_MISSED'
  | 'SHOT_VERDICT_MISMATCHED' | 'SHOT_VERDICT_TOO_OLD';
export type FlightEnd = 'FLIGHT_END_UNSPECIFIED' | 'FLIGHT_END_HIT' | 'FLIGHT_END_FLIGHT_OVER' | 'FLIGHT_END_CURRENT_TICK'
  | 'FLIGHT_END_LEFT_WORLD';
/** A projectile fired at `fire`, claimed to hit `target_body_id` at `impact_tick` (see ValidateShots in arbiter.proto). */
export interface Shot {
  shooter_body_id: LongIn; shot_id: LongIn; fire: PastTick; origin: Vec2;
  /** Units per second and units per second squared, raw. */
  velocity: Vec2; acceleration?: Vec2;
  /** Units, raw; 0: a point. */
  radius?: Raw; flight_ticks: number; target_body_id: LongIn; impact_tick: LongIn; impact_point?: Vec2;
}
export interface ValidateShotsRequest {
  world_id: string; shots: Shot[]; filter?: QueryFilter; tick_tolerance?: number;
  /** Units, raw, >= 0. */
  point_tolerance?: Raw;
  /** The caller's own rewind cap in ticks; absent: none. */
  max_rewind_ticks?: number;
}
export interface ShotJudgement {
  shooter_body_id: Long; shot_id: Long; verdict: ShotVerdict;
  /** Judged before: this is the first judgement. */
  duplicate: boolean;
  hit: Hit | null; impact: PastTick | null; end: FlightEnd; end_at: PastTick; end_position: Vec2;
  ticks_traced: number; oldest_allowed_tick: Long; judged_at_tick: Long; reason: string;
}
export interface ValidateShotsResponse { tick: Long; judgements: ShotJudgement[] }
/** A shape placed at `transform` that tries to move by `translation` (|x|, |y| <= 2^28 units) and slide. */
export interface ShapeMove { shape: Shape; transform?: Transform; translation?: Vec2 }
export interface MoveShapesRequest {
  world_id: string; moves: ShapeMove[]; filter?: QueryFilter;
  /** Units, raw, 2^16..2^32; 0 or absent: 1/64 unit. */
  skin?: Raw;
  /** 1..16; 0 or absent: 4. */
  max_iterations?: number;
  at?: PastTick;
}
export interface MoveOutcome {
  /** Where the transform's origin ends. */
  position: Vec2;
  /** Raw, in [0, 1]: the part of the translation achieved. */
  fraction: Raw;
  blocked: boolean; planes: MovePlaneHit[]; iterations: number;
}
export interface MoveShapesResponse { tick: Long; tick_fraction: Raw; results: MoveOutcome[] }
export interface ReportHashesRequest { world_id: string; first_tick: LongIn; state_hashes: LongIn[] }
export interface ReportHashesResponse {
  in_sync: boolean; first_divergent_tick?: Long; server_hash: Long; tick: Long; oldest_tick: Long;
}
export interface ExportJournalRequest { world_id: string; from_tick?: LongIn; to_tick?: LongIn }

// ---- Moving a world (admin) ------------------------------------------------------------------
export interface FreezeWorldRequest {
  world_id: string;
  /** Where the world is going ("host:port"), named in the refusals writers get; required unless thaw. */
  destination?: string;
  /** Lift the freeze (a move that failed): writes are accepted again. */
  thaw?: boolean;
}
export interface FreezeWorldResponse {
  /** The tick and state hash the world is frozen at. */
  tick: Long; state_hash: Long;
  /** Its lag-compensation window. */
  history_ticks: number;
  /** Whether it is frozen now. */
  frozen: boolean;
  /** The world's epoch now (a freeze or a thaw raises it). */
  epoch: Long;
}
export interface ImportWorldRequest {
  world_id: string;
  /** An export file (exportJournal's bytes from the source). */
  journal: Uint8Array;
  /** Where the replay must end: FAILED_PRECONDITION otherwise, and nothing changes. */
  expected_tick: LongIn; expected_state_hash: LongIn;
  /** The epoch the source froze at: the replay must end frozen at it. 0 or absent: not checked. */
  expected_epoch?: LongIn;
}
export interface ImportWorldResponse {
  world: WorldInfo;
  /** The records replayed and journaled. */
  records: Long;
}

// ---- Stepping, events, state -----------------------------------------------------------------
export interface StepCommand { tick_offset: number; update: BodyUpdate }
export interface ContactEvent { a: ShapeRef; b: ShapeRef; point: Vec2; normal: Vec2; approach_speed: Raw }
export interface SensorEvent { sensor: ShapeRef; visitor: ShapeRef }
export interface TickEvents {
  tick: Long; contact_begin: ContactEvent[]; contact_end: ContactEvent[]; sensor_enter: SensorEvent[];
  sensor_exit: SensorEvent[]; state_hash?: Long;
}
export interface StepRequest extends WriteGuards {
  world_id: string; ticks: number; commands?: StepCommand[]; omit_events?: boolean; hash_every_tick?: boolean;
}
export interface StepResponse { tick: Long; state_hash: Long; ticks: TickEvents[]; events_truncated: boolean }
export interface WatchEventsRequest { world_id: string }
export interface GetStateHashRequest { world_id: string }
export interface GetStateHashResponse { tick: Long; state_hash: Long }
export interface GetSnapshotRequest { world_id: string }
export interface GetSnapshotResponse { tick: Long; state_hash: Long; snapshot: Buffer }
export interface RestoreRequest extends WriteGuards { world_id: string; snapshot: Uint8Array }
export interface RestoreResponse { world: WorldInfo }

// ---- The server ------------------------------------------------------------------------------
export interface ServerLimits {
  max_batch: number; max_message_bytes: Long; max_step_ticks: number; max_worlds: number; max_bodies_per_world: number;
  history_seconds: number; max_history_ticks: number; hash_window_ticks: number; query_threads: number;
  max_scene_bytes: Long; max_shapes_per_body: number; max_world_coordinate: Raw; max_query_translation: Raw;
  rate_limit_rps: number; max_calls_in_flight: number;
}
export interface ServerFeatures {
  auth_required: boolean; tls: boolean; client_certificate_required: boolean; journal: boolean; scenes: boolean;
}
export interface GetServerInfoResponse { version: string; limits: ServerLimits; features: ServerFeatures }

// ---- The client ------------------------------------------------------------------------------
export class ArbiterError extends Error {
  /** The gRPC status code (grpc.status) and its name. */
  code: number;
  codeName: string;
  /** The request field the server named ("rays[12].origin"), or null. */
  field: string | null;
  reason: string;
}

export interface ConnectOptions {
  token?: string;
  credentials?: ChannelCredentials;
  timeoutMs?: number;
  protoDir?: string;
  /** Largest message sent or received; default: the server's max_message_bytes (at least 64 MiB). */
  maxMessageBytes?: number;
}

export interface WatchStream extends AsyncGenerator<TickEvents> { cancel(): void }
export interface QueryStream extends AsyncIterable<CastRaysResponse> {
  write(request: CastRaysRequest): void;
  end(): void;
  cancel(): void;
}

export class ArbiterClient {
  static connect(address: string, options?: ConnectOptions): Promise<ArbiterClient>;
  /** The address connected to ("host:port"). */
  readonly address: string;
  /** GetServerInfo as asked at connect. */
  info: GetServerInfoResponse;
  readonly maxBatch: number;
  close(): void;

  getServerInfo(): Promise<GetServerInfoResponse>;
  createWorld(request: CreateWorldRequest): Promise<CreateWorldResponse>;
  deleteWorld(request: DeleteWorldRequest): Promise<DeleteWorldResponse>;
  listWorlds(): Promise<ListWorldsResponse>;
  describeWorld(request: DescribeWorldRequest): Promise<DescribeWorldResponse>;
  addBodies(request: AddBodiesRequest): Promise<AddBodiesResponse>;
  removeBodies(request: RemoveBodiesRequest): Promise<RemoveBodiesResponse>;
  updateBodies(request: UpdateBodiesRequest): Promise<UpdateBodiesResponse>;
  castRays(request: CastRaysRequest): Promise<CastRaysResponse>;
  overlap(request: OverlapRequest): Promise<OverlapResponse>;
  castShapes(request: CastShapesRequest): Promise<CastShapesResponse>;
  distance(request: DistanceRequest): Promise<DistanceResponse>;
  validateHit(request: ValidateHitRequest): Promise<ValidateHitResponse>;
  /** Split by max_batch over claims and their positions together; judgements in request order. */
  validateMove(request: ValidateMoveRequest): Promise<ValidateMoveResponse>;
  /** Split by max_batch over shots and their flight_ticks together; judgements in request order. */
  validateShots(request: ValidateShotsRequest): Promise<ValidateShotsResponse>;
  moveShapes(request: MoveShapesRequest): Promise<MoveShapesResponse>;
  queryStream(): QueryStream;
  step(request: StepRequest): Promise<StepResponse>;
  watchEvents(request: WatchEventsRequest): WatchStream;
  getStateHash(request: GetStateHashRequest): Promise<GetStateHashResponse>;
  getSnapshot(request: GetSnapshotRequest): Promise<GetSnapshotResponse>;
  restore(request: RestoreRequest): Promise<RestoreResponse>;
  reportHashes(request: ReportHashesRequest): Promise<ReportHashesResponse>;
  exportJournal(request: ExportJournalRequest): Promise<Buffer>;
  /** Refuses writes to the world from now on (or, with thaw, accepts them again); idempotent. */
  freezeWorld(request: FreezeWorldRequest): Promise<FreezeWorldResponse>;
  /** Adds a world rebuilt from another instance's export, checked against the expected tick and hash. */
  importWorld(request: ImportWorldRequest): Promise<ImportWorldResponse>;
}

// ---- Builders (world units in) ---------------------------------------------------------------
export function vec2(x: number, y: number, field?: string): Vec2;
export function circle(radius: number, center?: [number, number]): Shape;
export function box(halfWidth: number, halfHeight: number, center?: [number, number]): Shape;
export function polygon(points: [number, number][], radius?: number): Shape;
export function capsule(center1: [number, number], center2: [number, number], radius: number): Shape;
export function segment(point1: [number, number], point2: [number, number]): Shape;
/** A one-sided chain (input only): the server expands it into chain segments. */
export function chain(points: [number, number][], loop?: boolean): Shape;
export function body(id: LongIn, type: 'static' | 'kinematic' | 'dynamic', position: [number, number], shapes: (Shape | ShapeDef)[],
  extra?: Partial<BodyDef>): BodyDef;
export function ray(origin: [number, number], translation: [number, number]): Ray;
export function shapeMove(shape: Shape, position: [number, number], translation: [number, number]): ShapeMove;
export function shapeQuery(shape: Shape, position?: [number, number]): ShapeQuery;
export function distanceQuery(shape: Shape, position: [number, number], maxDistance: number, maxResults?: number): DistanceQuery;
export function moveClaim(bodyId: LongIn, tick: LongIn, positions: [number, number][], shapeIndex?: number): MoveClaim;
export function shot(shooterBodyId: LongIn, shotId: LongIn, fire: LongIn | [LongIn, number], origin: [number, number],
  velocity: [number, number], targetBodyId: LongIn, impactTick: LongIn,
  options?: { flightTicks?: number; acceleration?: [number, number]; radius?: number; impactPoint?: [number, number] }): Shot;

/** One world of a fleet and the instance ("host:port") holding it. */
export interface FleetWorld { world_id: string; instance: string; info: WorldInfo }
/** An instance that did not answer ListWorlds. */
export interface UnreachableInstance { instance: string; error: ArbiterError }
/**
 * ListWorlds on each instance, merged: worlds sorted by id, then by the
 * instance's place in `instances` (a world shows twice only mid-migration);
 * the instances that did not answer are named, the others' worlds listed.
 */
export function listFleetWorlds(instances: string[], options?: ConnectOptions):
  Promise<{ worlds: FleetWorld[]; unreachable: UnreachableInstance[] }>;

/** What one move did (the C++ client's MigrationReport; times in milliseconds). */
export interface MigrationReport {
  /** The tick the world was frozen at (and serves at on the destination), and its state hash there. */
  tick: Long; state_hash: Long;
  /** The epoch it was frozen at (and serves at on the destination). */
  epoch: Long;
  /** resumeMigration only: the destination held the world already, so only the source's copy had to go. */
  resumed_after_import: boolean;
  /** Journal records replayed on the destination. */
  records: Long;
  export_bytes: number;
  /** From the freeze on the source to the destination serving: writes were refused (UNAVAILABLE, retryable). */
  write_refusal_ms: number;
  /** ExportJournal on the source, ImportWorld on the destination. */
  export_ms: number; import_ms: number;
  /** Set when the world serves on the destination but could not be deleted on the source: what to run. */
  warning: string;
}
export interface MigrateOptions extends ConnectOptions {
  /** Named in the source's refusals and tombstone; default: the destination's address. */
  destinationAddress?: string;
}
/**
 * Moves a world from `source` to `destination` (admin on both; clients or
 * "host:port"): freeze, export, import checked against the frozen tick, hash
 * and epoch, delete on the source. An export that fails or an import that
 * was refused thaws the source; an import of unknown outcome goes on if the
 * destination serves the world at the frozen epoch, and otherwise leaves the
 * source frozen (the error names --resume: resumeMigration).
 */
export function migrateWorld(source: ArbiterClient | string, destination: ArbiterClient | string, worldId: string,
  options?: MigrateOptions): Promise<MigrationReport>;
/**
 * Finishes a move cut short: the source must hold the world frozen, moving
 * to the destination. Only the source's copy goes when the destination
 * holds the world at the frozen epoch; the export and import run again when
 * it does not hold it; FAILED_PRECONDITION at another epoch.
 */
export function resumeMigration(source: ArbiterClient | string, destination: ArbiterClient | string, worldId: string,
  options?: MigrateOptions): Promise<MigrationReport>;
export interface ThawOptions extends ConnectOptions {
  /** Asked first: FAILED_PRECONDITION when it serves the world at the epoch frozen on the source. Absent: not asked. */
  destination?: ArbiterClient | string;
}
/** Undoes a move's freeze on `source`, so the world serves there again (at a new epoch). */
export function thawWorld(source: ArbiterClient | string, worldId: string, options?: ThawOptions): Promise<FreezeWorldResponse>;
