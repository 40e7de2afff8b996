// Every `arbiter` command, in the order `arbiter help` lists them. A new
// command is one more entry here (and its Run function in its family's file).
#include "bench.h"
#include "body_commands.h"
#include "command.h"
#include "demo.h"
#include "fleet_commands.h"
#include "move_commands.h"
#include "query_commands.h"
#include "render_command.h"
#include "shot_commands.h"
#include "replay_command.h"
#include "state_commands.h"
#include "step_commands.h"
#include "world_commands.h"

namespace arbiter::cli {

const std::vector<CommandSpec>& Commands() {
  static const std::vector<CommandSpec> commands = {
      {"worlds", "[--instances H1,H2,...]", "list the server's worlds (or every instance's of a fleet)",
       "--instances asks each instance of a fleet directly (ListWorlds through the proxy reaches one of them)\n"
       "and merges the lists by world id, naming the instance holding each; an instance that does not answer\n"
       "is reported on stderr (exit 1) and the others are still listed.",
       {"instances"}, {}, RunWorlds},
      {"describe", "[--bodies] [--shapes]", "one world's settings, tick and hash (and bodies, and their shapes)",
       "--bodies lists every body (id, type, position, velocity); --shapes also lists each body's shapes in\n"
       "its own frame (read from the world's snapshot, so it needs the admin role on a secured server).",
       {}, {"bodies", "shapes"}, RunDescribe},
      {"create", "[SCENE.json] [--scene NAME] [--gravity X,Y] [--tick_hz HZ] [--max_bodies N] [--history_ticks N] [--sleep]"
       " [--sub_steps N] [--contact_hertz HZ]",
       "create a world: empty, from a local scene file, or from a scene on the server",
       "SCENE.json is read here and uploaded (in batches of --batch bodies, default 4096); --scene NAME is\n"
       "a file in the server's --scene_dir. Flags override the scene's settings. --history_ticks is how many\n"
       "past ticks queries may name with --at (0: the server's default). --sleep lets resting islands sleep\n"
       "(otherwise the scene's \"allow_sleep\" decides; off without one). --sub_steps (1..32, default 4) and\n"
       "--contact_hertz (1..10000, default 30; used up to tick_hz * sub_steps / 4) stiffen the contact solver\n"
       "(tall stacks sag less, at about proportional cost); otherwise the scene's \"sub_steps\" and\n"
       "\"contact_hertz\" decide.",
       {"scene", "gravity", "tick_hz", "max_bodies", "history_ticks", "batch", "sub_steps", "contact_hertz"}, {"sleep"},
       RunCreate},
      {"load", "SCENE.json [--replace] [--batch N]", "create a world from a scene file, named after the scene (or --world)",
       "--replace deletes a world of that name first (asks, or needs --yes without a terminal).",
       {"batch"}, {"replace", "yes"}, RunLoad},
      {"delete", "[--yes]", "delete the world (says what it deletes; --yes without a terminal)", "", {}, {"yes"}, RunDelete},
      {"migrate", "--world W --from HOST:PORT --to HOST:PORT [--resume | --thaw] | --world W --from HOST:PORT --thaw",
       "move a world to another instance of a fleet, with its history (docs/fleet.md)",
       "Freezes W on --from, durably (writes get UNAVAILABLE, retryable; reads go on), copies its journal\n"
       "from the snapshot its history window starts at, replays it on --to, checks the state hash and epoch,\n"
       "then deletes it on --from (which answers UNAVAILABLE \"moved to\" for a while). Prints how long\n"
       "writes were refused. A refused import thaws --from again; one whose outcome is unknown leaves it\n"
       "frozen. --resume finishes a move cut short (a crash of either side); --thaw undoes one (with --to,\n"
       "only once --to is known not to serve W at the frozen epoch). Needs the admin role.",
       {"from", "to"}, {"thaw", "resume"}, RunMigrate},
      {"rebalance", "--instances H1,H2,... [--drain H] [--yes]",
       "move every world whose owner under the proxy's consistent hash changed",
       "--instances: every instance, spelt as in the nginx `server` lines (the ring hashes those strings);\n"
       "--drain H: plan as if H were gone (to empty it). Lists each world whose owner differs from where it\n"
       "is (world, from, to); --yes then migrates them one by one. Reload the proxy with the new list after.",
       {"instances", "drain"}, {"yes"}, RunRebalance},
      {"add", "FILE.json | --id N [--type T] [--position X,Y] [--velocity VX,VY] (--circle R | --box HW,HH | --capsule X1,Y1,X2,Y2,R) [--sensor]",
       "add bodies from a JSON file (scene format) or one body from flags",
       "FILE.json holds bodies as in scenes/FORMAT.md: {\"bodies\": [...]} or a whole scene (its bodies).\n"
       "--type is static, kinematic or dynamic (default dynamic); all or nothing.",
       {"id", "type", "position", "velocity", "circle", "box", "capsule"}, {"sensor"}, RunAdd},
      {"remove", "ID...", "remove bodies by id (all or nothing)", "", {}, {}, RunRemove},
      {"update", "ID [--position X,Y] [--angle RAD] [--velocity VX,VY] [--angular_velocity W] | FILE.json",
       "teleport bodies or set their velocities",
       "FILE.json: {\"updates\": [{\"id\": 3, \"position\": {\"x\": 1, \"y\": 2}, \"angle\": 0.5,\n"
       "  \"velocity\": {\"x\": 0, \"y\": -1}, \"angular_velocity\": 0}]}. A position or angle sets the whole\n"
       "transform (a missing one is 0); a velocity or angular velocity sets both (a missing one is 0).",
       {"position", "angle", "velocity", "angular_velocity"}, {}, RunUpdate},
      {"ray", "OX OY TX TY [--all|--any] [--at TICK[:FRACTION]]", "cast a ray from (OX, OY) along (TX, TY)",
       "--at asks the world as it was at a past tick; FRACTION (in [0, 1)) places moving bodies that far\n"
       "towards the next tick, as an interpolating client saw them. `arbiter describe` shows the oldest tick kept.",
       {"at"}, {"all", "any"}, RunRay},
      {"overlap", "point X Y | aabb X0 Y0 X1 Y1 | circle X Y R [--contacts] [--at TICK[:FRACTION]]",
       "shapes overlapping a point, box or disk; with --contacts how deep and which way out",
       "--contacts (circle queries): each overlap's normal (unit, from the query disk towards the body),\n"
       "depth, contact points and the push-out (-normal * depth) that leaves the disk touching.",
       {"at"}, {"contacts"}, RunOverlap},
      {"distance", "X Y (--circle R | --box HW,HH | --capsule X1,Y1,X2,Y2,R) [--max_distance D] [--max_results N] [--at TICK[:FRACTION]]",
       "the bodies nearest a shape placed at (X, Y), with distances and closest points",
       "Each body within D units (default 100) once, at its nearest shape, nearest first; at most N bodies\n"
       "(1..256, default 8). An overlapping body is at distance 0 with its contact normal and depth.",
       {"at", "max_distance", "max_results", "circle", "box", "capsule"}, {}, RunDistance},
      {"sweep", "X Y R TX TY [--all|--any] [--at TICK[:FRACTION]]", "sweep a disk of radius R from (X, Y) along (TX, TY)",
       "", {"at"}, {"all", "any"}, RunSweep},
      {"validate", "SHOOTER TARGET OX OY TX TY [--at TICK[:FRACTION]]",
       "judge a shot (ValidateHit): CONFIRMED, BLOCKED or MISSED, with the evidence",
       "The ray from (OX, OY) along (TX, TY), fired by body SHOOTER (its shapes are ignored) at body TARGET,\n"
       "against the world at --at (default: now). Prints the verdict, the first hit and the hit on the target.",
       {"at"}, {}, RunValidate},
      {"validate-move", "--body ID --tick T --max_speed V [--tolerance D] X1 Y1 [X2 Y2 ...]",
       "judge a player's claimed path (ValidateMove): VALID, CORRECTED or REJECTED, with the evidence",
       "Body ID claims to be at (X1, Y1) at tick T + 1, (X2, Y2) at T + 2, ... (T inside the history window;\n"
       "`arbiter describe` shows the oldest tick kept). The server starts from where it had the body at T and\n"
       "judges each step against the world as it was: longer than V / tick_hz units (V in units per second) is\n"
       "REJECTED; ending more than D units (default 0) from where move-and-slide takes the body's shape is\n"
       "CORRECTED, with the position to snap back to and the surfaces met. Prints the verdict, the judged\n"
       "tick, the accepted and claimed positions, the reason and the planes met (--json: raw values too).\n"
       "  --shape_index N (default 0), --skin S (units, default 1/64), --max_iterations N (1..16, default 4).\n"
       "Flags may be spelt with - or _ (--max-speed).",
       {"body", "tick", "max_speed", "tolerance", "skin", "max_iterations", "shape_index"}, {}, RunValidateMove},
      {"validate-shot", "--shooter ID --shot ID --fire TICK[:FRACTION] --target ID --impact_tick T OX OY VX VY [--gravity GX,GY] [--radius R] [--flight_ticks N]",
       "judge a projectile (ValidateShots): its flight traced through the history; CONFIRMED, BLOCKED, MISSED, MISMATCHED or TOO_OLD",
       "Body --shooter fired shot --shot (an id unique per shooter) at --fire from (OX, OY) at (VX, VY) units/s,\n"
       "with constant acceleration --gravity (units/s^2, default none), as a point or a disk of --radius, for at\n"
       "most --flight_ticks ticks (default 60), and claims it hit body --target at tick --impact_tick. The server\n"
       "casts each tick's stretch of the flight against the world as it was at that tick and prints the verdict,\n"
       "what the flight met and when, and where the flight ended (--json: raw values too). A shot sent again\n"
       "gets its first judgement. --tick_tolerance N (default 0), --impact_point X,Y with --point_tolerance D,\n"
       "--max_rewind_ticks N (older shots are TOO_OLD).",
       {"shooter", "shot", "fire", "target", "impact_tick", "gravity", "radius", "flight_ticks", "tick_tolerance",
        "impact_point", "point_tolerance", "max_rewind_ticks"},
       {}, RunValidateShot},
      {"move", "X Y TX TY (--circle R | --box HW,HH | --capsule X1,Y1,X2,Y2,R) [--skin S] [--max_iterations N] [--at TICK[:FRACTION]]",
       "where a shape placed at (X, Y) ends when it moves by (TX, TY) and slides (MoveShapes)",
       "Move-and-slide as a query (nothing in the world moves): a start that overlaps is pushed out first,\n"
       "each cast stops --skin units (default 1/64) clear of what it meets and slides along it; a head-on hit or a\n"
       "corner blocks. Prints where the shape ends, the fraction of (TX, TY) achieved, whether it was blocked\n"
       "and the surfaces met (--json: raw values too). --at asks the world as it was at a past tick.",
       {"circle", "box", "capsule", "skin", "max_iterations", "at"}, {}, RunMove},
      {"step", "[N] [--chunk K]", "advance N ticks (default 1), K per call (default 60)", "", {"chunk"}, {}, RunStep},
      {"watch", "[--count N]", "print each tick's contact and sensor pairs as the world steps",
       "Says on stderr when it is connected; ends after N ticks with --count, or on Ctrl-C.", {"count"}, {}, RunWatch},
      {"hash", "", "the world's state hash", "", {}, {}, RunHash},
      {"report-hashes", "FIRST_TICK HASH...", "compare a lockstep peer's per-tick hashes with the server's",
       "HASH i is the peer's state hash after stepping into tick FIRST_TICK + i - 1 (0x-hex as `arbiter hash`\n"
       "prints, or decimal). Exit 0 in sync, 3 diverged (the first divergent tick is printed).",
       {}, {}, RunReportHashes},
      {"snapshot", "FILE", "save the world's state to a local file", "", {}, {}, RunSnapshot},
      {"restore", "FILE [--yes]", "replace the world's state with a snapshot file (asks when the world has bodies)",
       "", {}, {"yes"}, RunRestore},
      {"export", "FILE [--from_tick N] [--to_tick M]", "save the world's journal (server with --data_dir) for replay verify",
       "", {"from_tick", "to_tick"}, {}, RunExport},
      {"health", "[--service S]", "gRPC health check (exit 0 when SERVING)", "", {"service"}, {}, RunHealth},
      {"info", "", "the server's version, limits and features (GetServerInfo)",
       "Size batches by limits.max_batch and replies by limits.max_message_bytes.", {}, {}, RunInfo},
      {"demo", "", "run a few core queries in-process and print the answers", "", {}, {}, nullptr,
       [](int, char**) { return RunDemo(); }},
      {"bench", "[--seconds S] [--concurrency 1,8,64] [--batch N] [--window W] [--modes M,..] [--scene F --queries F]",
       "load generator: empty RPC, unary and batched rays, disk sweeps, stream", "", {}, {}, nullptr, RunBench},
      {"replay", "verify FILE [--json]", "re-run a journal export offline; exit 1 if any tick or answer differs", "", {},
       {}, nullptr, RunReplay},
      {"render", "--out F.svg [--world W [--at T[:F]] | --snapshot F | --journal F --tick T[:F]] [--ray X Y DX DY]...",
       "draw the world (exact SVG) with queries and their answers",
       "  [--box X0 Y0 X1 Y1]... [--queries F] [--view X0 Y0 X1 Y1]\n"
       "Live (--world, a writer token: GetSnapshot; --at replays ExportJournal) or offline (--snapshot, --journal).",
       {}, {}, nullptr, RunRender},
  };
  return commands;
}

const CommandSpec* FindCommand(std::string_view name) {
  for (const CommandSpec& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace arbiter::cli
