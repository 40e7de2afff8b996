// ArbiterClient: one method per arbiter.v1 RPC. Requests and replies are the
// .proto's messages as plain objects with the .proto's field names
// (snake_case); raw Q32.32 values and other 64-bit integers come back as
// BigInt. Unary calls return Promises, server streams are async iterators,
// QueryStream is a duplex (write / end / async iteration). Failures reject
// with ArbiterError (code, field, reason).
//
// Batches longer than the server's max_batch (GetServerInfo, asked once in
// connect) are split into several calls: invisible for queries (though the
// parts may answer at different ticks if someone steps meanwhile; the
// reply's tick is the first part's); for AddBodies, RemoveBodies and
// UpdateBodies each part is all-or-nothing, the whole is not.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

import { Wire } from './wire.js';

// An installed package (npm pack, whose prepack copies them) ships the
// .proto files in proto/; in the repository they are ../../proto.
const PACKAGE_DIR = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_PROTO_DIR = existsSync(path.join(PACKAGE_DIR, 'proto', 'arbiter', 'v1', 'arbiter.proto'))
  ? path.join(PACKAGE_DIR, 'proto')
  : path.resolve(PACKAGE_DIR, '../../proto');
const DEFAULT_MESSAGE_BYTES = 64 << 20;
/** The call metadata naming a call's world (docs/fleet.md). */
export const WORLD_METADATA_KEY = 'x-arbiter-world';
const FIELD = /^([A-Za-z_]\w*(?:\[\d+\])?(?:\.[A-Za-z_]\w*(?:\[\d+\])?)*): ([\s\S]*)$/;

/** A failed call: `code` is the gRPC status code, `field` the request field the server named. */
export class ArbiterError extends Error {
  constructor(code, details) {
    const match = FIELD.exec(details ?? '');
    const codeName = Object.keys(grpc.status).find((k) => grpc.status[k] === code) ?? String(code);
    super(`${codeName}: ${details}`);
    this.name = 'ArbiterError';
    this.code = code;
    this.codeName = codeName;
    this.field = match ? match[1] : null;
    this.reason = match ? match[2] : details;
  }
}

// Which repeated field of a request is its batch, for splitting.
const BATCHES = {
  AddBodies: 'bodies', RemoveBodies: 'body_ids', UpdateBodies: 'updates', CastRays: 'rays',
  Overlap: 'queries', CastShapes: 'casts', MoveShapes: 'moves', Distance: 'queries',
};

export class ArbiterClient {
  /**
   * Connects to `address` ("host:port") and asks GetServerInfo for the
   * limits. options: token (bearer), credentials (grpc.credentials.createSsl(...);
   * default insecure), timeoutMs per unary call (60000), protoDir,
   * maxMessageBytes (default: the server's max_message_bytes, at least 64 MiB).
   */
  static async connect(address, options = {}) {
    const definition = await protoLoader.load('arbiter/v1/arbiter.proto', {
      includeDirs: [options.protoDir ?? process.env.ARBITER_PROTO_DIR ?? DEFAULT_PROTO_DIR],
      keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
    });
    const client = new ArbiterClient(address, definition, options);
    client.info = await client.getServerInfo();
    const wanted = options.maxMessageBytes ?? Math.max(DEFAULT_MESSAGE_BYTES, Number(client.info.limits.max_message_bytes));
    if (wanted !== client.messageBytes) client.open(Math.min(wanted, 2 ** 31 - 1));
    return client;
  }

  constructor(address, definition, options) {
    this.address = address;
    this.options = options;
    this.wire = new Wire(definition, 'arbiter.v1');
    this.Service = grpc.loadPackageDefinition(definition).arbiter.v1.Arbiter;
    this.methods = definition['arbiter.v1.Arbiter'];
    this.open(options.maxMessageBytes ?? DEFAULT_MESSAGE_BYTES);
  }

  open(messageBytes) {
    this.stub?.close();
    this.messageBytes = messageBytes;
    this.stub = new this.Service(this.address, this.options.credentials ?? grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': messageBytes,
      'grpc.max_send_message_length': messageBytes,
    });
  }

  close() {
    this.stub.close();
  }

  get maxBatch() {
    return Math.max(1, this.info?.limits.max_batch ?? 1);
  }

  /**
   * The call metadata: the token and, for a call on a world, x-arbiter-world,
   * by which a fleet's proxy routes the call to the world's owner (the server
   * refuses a call whose metadata and world_id disagree).
   */
  metadata(worldId = '') {
    const m = new grpc.Metadata();
    if (this.options.token) m.set('authorization', `Bearer ${this.options.token}`);
    if (worldId) m.set(WORLD_METADATA_KEY, worldId);
    return m;
  }

  /** One unary call; `request` is checked and converted before anything is sent. */
  async unary(method, request) {
    const spec = this.methods[method];
    const encoded = this.wire.encode(request, spec.requestType.type.name, '');
    const deadline = new Date(Date.now() + (this.options.timeoutMs ?? 60000));
    return new Promise((resolve, reject) => {
      this.stub[method](encoded, this.metadata(request.world_id ?? ''), { deadline }, (error, reply) => {
        if (error) reject(new ArbiterError(error.code, error.details));
        else resolve(this.wire.decode(reply, spec.responseType.type.name));
      });
    });
  }

  /** A unary call split by max_batch on its batch field; `merge(replies)` makes one reply. */
  async batched(method, request, merge) {
    const key = BATCHES[method];
    const items = request[key] ?? [];
    if (items.length <= this.maxBatch) return this.unary(method, request);
    const replies = [];
    for (let i = 0; i < items.length; i += this.maxBatch) {
      replies.push(await this.unary(method, { ...request, [key]: items.slice(i, i + this.maxBatch) }));
    }
    return merge(replies);
  }

  async *serverStream(call, typeName) {
    try {
      for await (const message of call) yield this.wire.decode(message, typeName);
    } catch (error) {
      if (error.code === grpc.status.CANCELLED) return;
      throw new ArbiterError(error.code, error.details);
    }
  }

  // ---- The server ---------------------------------------------------------------------
  getServerInfo() { return this.unary('GetServerInfo', {}); }

  // ---- Worlds -------------------------------------------------------------------------
  createWorld(request) { return this.unary('CreateWorld', request); }
  deleteWorld(request) { return this.unary('DeleteWorld', request); }
  listWorlds() { return this.unary('ListWorlds', {}); }
  describeWorld(request) { return this.unary('DescribeWorld', request); }

  // ---- Bodies (split by max_batch; the reply is the last part's) ------------------------
  addBodies(request) { return this.batched('AddBodies', request, (r) => r.at(-1)); }
  removeBodies(request) { return this.batched('RemoveBodies', request, (r) => r.at(-1)); }
  updateBodies(request) { return this.batched('UpdateBodies', request, (r) => r.at(-1)); }

  // ---- Queries (split by max_batch; results concatenated in request order) -------------
  castRays(request) {
    return this.batched('CastRays', request, (r) => ({ ...r[0], results: r.flatMap((x) => x.results) }));
  }
  overlap(request) {
    return this.batched('Overlap', request, (r) => ({ ...r[0], results: r.flatMap((x) => x.results) }));
  }
  /** Distance: the bodies nearest each placed shape, nearest first; one result per query. */
  distance(request) {
    return this.batched('Distance', request, (r) => ({ ...r[0], results: r.flatMap((x) => x.results) }));
  }
  castShapes(request) {
    return this.batched('CastShapes', request, (r) => ({ ...r[0], results: r.flatMap((x) => x.results) }));
  }
  /** MoveShapes: move-and-slide as a query, one outcome per move; nothing in the world moves. */
  moveShapes(request) {
    return this.batched('MoveShapes', request, (r) => ({ ...r[0], results: r.flatMap((x) => x.results) }));
  }
  validateHit(request) { return this.unary('ValidateHit', request); }

  /**
   * ValidateMove: one judgement per claim, in request order. The server
   * bounds both the claims and all their positions together by max_batch:
   * the claims go in as many calls as that takes (a single claim longer
   * than max_batch is sent alone and refused); the reply's tick is the
   * first call's.
   */
  async validateMove(request) {
    return this.splitJudged('ValidateMove', request, 'claims', (claim) => claim?.positions?.length ?? 0);
  }

  /** ValidateShots, split by max_batch over the shots and their flight_ticks together. */
  async validateShots(request) {
    return this.splitJudged('ValidateShots', request, 'shots', (shot) => Number(shot?.flight_ticks ?? 0));
  }

  // A request whose `field` items each cost cost(item) of the server's
  // max_batch, sent in as many calls as that takes; the judgements joined.
  async splitJudged(method, request, field, cost) {
    const parts = [];
    let part = [];
    let spent = 0;
    for (const item of request[field] ?? []) {
      const c = cost(item);
      if (part.length > 0 && (part.length === this.maxBatch || spent + c > this.maxBatch)) {
        parts.push(part);
        part = [];
        spent = 0;
      }
      part.push(item);
      spent += c;
    }
    parts.push(part);
    if (parts.length === 1) return this.unary(method, request);
    // Checked whole first, so a bad item in a later part fails before any call, naming its index.
    this.wire.encode(request, `${method}Request`, '');
    const replies = [];
    for (const items of parts) replies.push(await this.unary(method, { ...request, [field]: items }));
    return { ...replies[0], judgements: replies.flatMap((r) => r.judgements) };
  }

  /**
   * QueryStream: write(request) CastRaysRequests, end() when done, and
   * iterate the replies (one per request, in order).
   */
  queryStream() {
    const call = this.stub.QueryStream(this.metadata());
    const wire = this.wire;
    return {
      write(request) { call.write(wire.encode(request, 'CastRaysRequest', '')); },
      end() { call.end(); },
      cancel() { call.cancel(); },
      [Symbol.asyncIterator]: () => this.serverStream(call, 'CastRaysResponse'),
    };
  }

  // ---- Stepping and state ---------------------------------------------------------------
  // The writes (addBodies, removeBodies, updateBodies, step, restore) take
  // expected_tick and expected_epoch (arbiter.proto "Safe retries"): when set
  // and the world is at another tick or epoch (WorldInfo.epoch, its
  // ownership generation), the call changes nothing and fails with
  // FAILED_PRECONDITION naming the field. A writer that names the epoch it
  // learned from the world's owner never has a change acknowledged by a
  // stale copy of the world.
  step(request) { return this.unary('Step', request); }

  /** WatchEvents: an async iterator of TickEvents; `.cancel()` ends it quietly. */
  watchEvents(request) {
    const call = this.stub.WatchEvents(this.wire.encode(request, 'WatchEventsRequest'), this.metadata(request.world_id ?? ''));
    const iterator = this.serverStream(call, 'TickEvents');
    iterator.cancel = () => call.cancel();
    return iterator;
  }

  getStateHash(request) { return this.unary('GetStateHash', request); }
  getSnapshot(request) { return this.unary('GetSnapshot', request); }
  restore(request) { return this.unary('Restore', request); }

  /** Split by max_batch; the first reply out of sync, else the last. */
  async reportHashes(request) {
    const hashes = request.state_hashes ?? [];
    let reply;
    for (let i = 0; i === 0 || i < hashes.length; i += this.maxBatch) {
      reply = await this.unary('ReportHashes', {
        ...request, first_tick: BigInt(request.first_tick) + BigInt(i), state_hashes: hashes.slice(i, i + this.maxBatch),
      });
      if (!reply.in_sync) break;
    }
    return reply;
  }

  /** ExportJournal: the export file as one Buffer. */
  async exportJournal(request) {
    const call = this.stub.ExportJournal(this.wire.encode(request, 'ExportJournalRequest'), this.metadata(request.world_id ?? ''));
    const parts = [];
    for await (const chunk of this.serverStream(call, 'ExportJournalChunk')) parts.push(chunk.data);
    return Buffer.concat(parts);
  }

  // ---- Moving a world (admin; arbiter.proto "Moving a world", fleet.js migrateWorld) ----
  /**
   * FreezeWorld: from now on every write to the world is refused with
   * UNAVAILABLE naming `destination` ("host:port", required unless thaw),
   * reads go on; with thaw: true writes are accepted again. Idempotent.
   * Journaled before it is answered (a restarted server comes back with the
   * world frozen); a freeze or a thaw raises the world's epoch (the reply's
   * `epoch`). To undo a move's freeze, fleet.js thawWorld checks the
   * destination first.
   */
  freezeWorld(request) { return this.unary('FreezeWorld', request); }
  /**
   * ImportWorld: adds the world rebuilt from `journal` (exportJournal's bytes
   * from another instance), all or nothing, checked to replay to
   * expected_tick with expected_state_hash and, unless expected_epoch is 0
   * or absent, to end frozen at that epoch (the freeze's; the world then
   * serves here at it). FAILED_PRECONDITION otherwise.
   */
  importWorld(request) { return this.unary('ImportWorld', request); }
}
