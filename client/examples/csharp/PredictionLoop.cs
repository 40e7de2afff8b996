// PredictionLoop.cs: a Unity- or Godot-style client-side prediction loop
// over Arbiter's C interface (Arbiter.cs).
//
// The "server" here is a second world in the same process standing in for
// arbiter-server (whose GetSnapshot bytes and state hashes are the same
// bits: the C interface is the server's core). Each frame the client:
//   1. reads the player's input and predicts: applies it to its own world
//      and steps one tick (what Update/_PhysicsProcess would do);
//   2. sends the input; the server applies the inputs it received and
//      steps too;
//   3. every few ticks receives the server's snapshot of a tick that is
//      Latency ticks old, restores it and replays its own inputs since
//      then (reconciliation): the corrected present.
// With identical inputs the prediction is the server's state bit for bit
// (equal state hashes every tick); when the server dropped an input, the
// prediction is wrong until the next snapshot arrives, and after the
// replay it is right again. The program checks both and exits 1 if not.
//
// Build and run: mcs -unsafe -out:prediction.exe Arbiter.cs PredictionLoop.cs
//                LD_LIBRARY_PATH=<dir of libarbiter_c.so> mono prediction.exe
using System;
using System.Collections.Generic;
using Arbiter;

static class PredictionLoop
{
    const ulong Player = 2;
    const int Ticks = 240;
    const int Latency = 6;        // ticks between the server's state and its arrival
    const int SnapshotEvery = 10; // ticks between snapshots the server sends
    const int DroppedInputTick = 120; // the first tick of a turn: the repeated input differs

    // The player's input for tick t: run right, then left (units/s, raw).
    static long InputFor(int t) => ((t / 40) % 2 == 0 ? 1 : -1) * Native.arb_raw_from_double(4.5);

    static void ApplyInput(World world, long vx)
    {
        BodyDef body = world.GetBody(Player);
        world.SetVelocity(Player, new Vec2(vx, body.LinearVelocity.Y));
    }

    static World BuildLevel()
    {
        var world = World.Create(new Vec2(0, Raw.FromInt(-10)), 60);
        world.AddBody(Shapes.Body(1, 0, new Vec2(0, Raw.FromInt(-1))), Shapes.Box(Raw.FromInt(50), Raw.One));
        world.AddBody(Shapes.Body(Player, 2, new Vec2(0, Raw.One)), Shapes.Box(Raw.One / 2, Raw.One / 2));
        for (int i = 0; i < 6; ++i)  // crates the player pushes around
            world.AddBody(Shapes.Body(10 + (ulong)i, 2, new Vec2(Raw.FromInt(4 + 3 * i), Raw.FromInt(1 + i % 2))),
                          Shapes.Circle(Raw.One / 2 + Raw.One / 8 * i));
        return world;
    }

    static int Main()
    {
        Native.CheckLayout();
        World server = BuildLevel();
        // The client joins with the server's snapshot (GetSnapshot).
        var client = World.Restore(server.Snapshot());
        if (client.StateHash != server.StateHash) return Fail("restored world differs from the server's");

        var inputs = new Dictionary<long, long>();         // client's input for each tick it stepped into
        var serverHashes = new Dictionary<long, ulong>();  // what the server had at each tick
        var serverSnapshots = new Dictionary<long, byte[]>();
        var predictedHashes = new Dictionary<long, ulong>();
        int corrections = 0;

        for (int t = 0; t < Ticks; ++t)
        {
            // 1. Predict.
            long input = InputFor(t);
            inputs[t + 1] = input;
            ApplyInput(client, input);
            client.Step();
            predictedHashes[client.Tick] = client.StateHash;

            // 2. The server applies what it received (one input lost: it
            //    repeats the previous one) and steps.
            ApplyInput(server, t == DroppedInputTick ? InputFor(t - 1) : input);
            server.Step();
            serverHashes[server.Tick] = server.StateHash;
            if (server.Tick % SnapshotEvery == 0) serverSnapshots[server.Tick] = server.Snapshot();

            // 3. Reconcile with a snapshot Latency ticks old, when one arrives.
            long ack = client.Tick - Latency;
            if (!serverSnapshots.TryGetValue(ack, out byte[] snapshot)) continue;
            ulong predictedNow = client.StateHash;
            var corrected = World.Restore(snapshot);
            while (corrected.Tick < client.Tick)
            {
                ApplyInput(corrected, inputs[corrected.Tick + 1]);
                corrected.Step();
            }
            if (corrected.StateHash != predictedNow)
            {
                ++corrections;
                Console.WriteLine($"tick {client.Tick}: server snapshot of tick {ack} disagrees with the prediction; replayed {Latency} inputs");
            }
            client.Dispose();
            client = corrected;
        }

        // Every predicted tick must equal the server's, except the ticks
        // from the lost input until the first snapshot after it arrives
        // (that tick is predicted wrong, then corrected).
        long firstWrong = DroppedInputTick + 1;
        long fixedAt = ((firstWrong + SnapshotEvery - 1) / SnapshotEvery) * SnapshotEvery + Latency;
        int equal = 0, wrong = 0;
        foreach (KeyValuePair<long, ulong> kv in predictedHashes)
        {
            long tick = kv.Key;
            ulong hash = kv.Value;
            bool expectWrong = tick >= firstWrong && tick <= fixedAt;
            bool same = hash == serverHashes[tick];
            if (same == expectWrong) return Fail($"tick {tick}: predicted hash {(same ? "equals" : "differs from")} the server's");
            if (same) ++equal; else ++wrong;
        }
        if (corrections != 1) return Fail($"{corrections} corrections, expected 1");
        if (client.StateHash != server.StateHash) return Fail("final state differs from the server's");
        BodyDef player = client.GetBody(Player);
        Console.WriteLine($"ok: {equal} ticks predicted exactly, {wrong} mispredicted after the lost input and corrected at tick {fixedAt}");
        Console.WriteLine($"ok: tick {client.Tick}, player at ({player.Transform.P.X / (double)Raw.One:F4}, {player.Transform.P.Y / (double)Raw.One:F4}), hash {client.StateHash:x16} = server's");
        client.Dispose();
        server.Dispose();
        return 0;
    }

    static int Fail(string message)
    {
        Console.Error.WriteLine("prediction loop: FAILED: " + message);
        return 1;
    }
}
