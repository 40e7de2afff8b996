// Arbiter.cs: P/Invoke bindings over Arbiter's C interface (libarbiter_c,
// core/include/arbiter/c/arbiter.h, which documents every rule), enough
// for a client-side prediction loop: worlds, bodies, stepping, state
// hashes, snapshots. Every geometric value is a raw Q32.32 long (value =
// raw / 2^32); build raw values with Native.arb_raw_from_double (the
// server's Fixed::FromDouble, bit for bit) or Raw.FromInt. Drop this file
// into a Unity or Godot (C#) project beside libarbiter_c.so / arbiter_c.dll.
//
// Structs mirror the C layout field by field on 64-bit targets (sizes are
// checked at start-up by Native.CheckLayout).
using System;
using System.Runtime.InteropServices;

namespace Arbiter
{
    public static class Raw
    {
        public const long One = 1L << 32;
        public static long FromInt(int v) => (long)v << 32;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Vec2 { public long X, Y; public Vec2(long x, long y) { X = x; Y = y; } }

    [StructLayout(LayoutKind.Sequential)]
    public struct Rot { public long C, S; }

    [StructLayout(LayoutKind.Sequential)]
    public struct Transform { public Vec2 P; public Rot Q; }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct Error
    {
        public int Code;
        public fixed byte Message[256];
        public string Text
        {
            get { fixed (byte* m = Message) { return Marshal.PtrToStringAnsi((IntPtr)m); } }
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct WorldDef { public Vec2 Gravity; public int TickHz; public uint MaxBodies; }

    // arb_shape_def: the shape (type and a union of 288 bytes) at 0, then
    // filter, materials and tag. Fill it with arb_shape_def_init, then set
    // a circle's radius or build a box into the union with arb_make_box.
    [StructLayout(LayoutKind.Explicit, Size = 360)]
    public struct ShapeDef
    {
        [FieldOffset(0)] public int Type;           // 0 circle, 1 capsule, 2 segment, 3 polygon
        [FieldOffset(8)] public Vec2 CircleCenter;
        [FieldOffset(24)] public long CircleRadius;
        [FieldOffset(320)] public long Friction;
        [FieldOffset(328)] public long Restitution;
        [FieldOffset(336)] public long Density;
        [FieldOffset(344)] public ulong UserTag;
        [FieldOffset(352)] public int IsSensor;
        public const int UnionOffset = 8;
    }

    [StructLayout(LayoutKind.Explicit, Size = 112)]
    public struct BodyDef
    {
        [FieldOffset(0)] public ulong Id;
        [FieldOffset(8)] public Transform Transform;
        [FieldOffset(40)] public Vec2 LinearVelocity;
        [FieldOffset(56)] public long AngularVelocity;
        [FieldOffset(64)] public long LinearDamping;
        [FieldOffset(72)] public long AngularDamping;
        [FieldOffset(80)] public long GravityScale;
        [FieldOffset(88)] public IntPtr Shapes;     // ShapeDef*, borrowed for the call
        [FieldOffset(96)] public uint ShapeCount;
        [FieldOffset(100)] public int Type;         // 0 static, 1 kinematic, 2 dynamic
        [FieldOffset(104)] public int IsBullet;
    }

    public static unsafe class Native
    {
        const string Lib = "arbiter_c";

        [DllImport(Lib)] public static extern IntPtr arb_status_name(int code);
        [DllImport(Lib)] public static extern long arb_raw_from_double(double d);
        [DllImport(Lib)] public static extern void arb_world_def_init(out WorldDef def);
        [DllImport(Lib)] public static extern void arb_shape_def_init(ShapeDef* def);
        [DllImport(Lib)] public static extern void arb_body_def_init(BodyDef* def);
        [DllImport(Lib)] public static extern int arb_make_box(long hw, long hh, void* polygon, Error* error);
        [DllImport(Lib)] public static extern int arb_world_create(ref WorldDef def, out IntPtr world, Error* error);
        [DllImport(Lib)] public static extern void arb_world_destroy(IntPtr world);
        [DllImport(Lib)] public static extern long arb_world_tick(IntPtr world);
        [DllImport(Lib)] public static extern ulong arb_world_state_hash(IntPtr world);
        [DllImport(Lib)] public static extern int arb_world_add_bodies(IntPtr world, BodyDef* bodies, UIntPtr count, Error* error);
        [DllImport(Lib)] public static extern int arb_world_set_velocity(IntPtr world, ulong id, ref Vec2 linear, long angular, Error* error);
        [DllImport(Lib)] public static extern int arb_world_get_body(IntPtr world, ulong id, BodyDef* body, ShapeDef* shapes, UIntPtr capacity, out UIntPtr count, Error* error);
        [DllImport(Lib)] public static extern int arb_world_step(IntPtr world, IntPtr events, Error* error);
        [DllImport(Lib)] public static extern int arb_world_snapshot(IntPtr world, out IntPtr bytes, out UIntPtr size, Error* error);
        [DllImport(Lib)] public static extern void arb_bytes_free(IntPtr bytes);
        [DllImport(Lib)] public static extern int arb_world_restore(byte* bytes, UIntPtr size, out IntPtr world, Error* error);

        public static void CheckLayout()
        {
            if (sizeof(Error) != 260 || sizeof(WorldDef) != 24 || sizeof(ShapeDef) != 360 || sizeof(BodyDef) != 112)
                throw new InvalidOperationException("Arbiter.cs: struct sizes differ from arbiter/c/arbiter.h (64-bit)");
        }

        // Throws with the core's message when a call failed.
        public static void Check(int status, Error* error)
        {
            if (status != 0)
                throw new ArbiterException(status, Marshal.PtrToStringAnsi(arb_status_name(status)), error->Text);
        }
    }

    public class ArbiterException : Exception
    {
        public readonly int Code;
        public ArbiterException(int code, string name, string message) : base(name + ": " + message) { Code = code; }
    }

    /// A world handle (IDisposable: destroy it, or let the finalizer).
    public sealed unsafe class World : IDisposable
    {
        IntPtr handle;
        World(IntPtr h) { handle = h; }

        public static World Create(Vec2 gravity, int tickHz)
        {
            Native.arb_world_def_init(out WorldDef def);
            def.Gravity = gravity;
            def.TickHz = tickHz;
            Error e;
            Native.Check(Native.arb_world_create(ref def, out IntPtr h, &e), &e);
            return new World(h);
        }

        /// A world rebuilt from snapshot bytes (the server's GetSnapshot).
        public static World Restore(byte[] bytes)
        {
            Error e;
            IntPtr h;
            fixed (byte* p = bytes) Native.Check(Native.arb_world_restore(p, (UIntPtr)bytes.Length, out h, &e), &e);
            return new World(h);
        }

        public long Tick => Native.arb_world_tick(handle);
        public ulong StateHash => Native.arb_world_state_hash(handle);

        public void Step()
        {
            Error e;
            Native.Check(Native.arb_world_step(handle, IntPtr.Zero, &e), &e);
        }

        public byte[] Snapshot()
        {
            Error e;
            Native.Check(Native.arb_world_snapshot(handle, out IntPtr bytes, out UIntPtr size, &e), &e);
            var copy = new byte[(int)size];
            Marshal.Copy(bytes, copy, 0, copy.Length);
            Native.arb_bytes_free(bytes);
            return copy;
        }

        /// Adds one body with one shape.
        public void AddBody(BodyDef body, ShapeDef shape)
        {
            Error e;
            body.Shapes = (IntPtr)(&shape);
            body.ShapeCount = 1;
            Native.Check(Native.arb_world_add_bodies(handle, &body, (UIntPtr)1, &e), &e);
        }

        public void SetVelocity(ulong id, Vec2 linear)
        {
            Error e;
            Native.Check(Native.arb_world_set_velocity(handle, id, ref linear, 0, &e), &e);
        }

        /// The body's current definition (transform, velocities).
        public BodyDef GetBody(ulong id)
        {
            Error e;
            BodyDef body;
            ShapeDef* shapes = stackalloc ShapeDef[64];
            Native.Check(Native.arb_world_get_body(handle, id, &body, shapes, (UIntPtr)64, out UIntPtr n, &e), &e);
            body.Shapes = IntPtr.Zero; // pointed at this stack frame
            return body;
        }

        public void Dispose()
        {
            if (handle != IntPtr.Zero) Native.arb_world_destroy(handle);
            handle = IntPtr.Zero;
            GC.SuppressFinalize(this);
        }
        ~World() { Dispose(); }
    }

    public static unsafe class Shapes
    {
        public static ShapeDef Box(long halfWidth, long halfHeight)
        {
            ShapeDef def;
            Native.arb_shape_def_init(&def);
            def.Type = 3;
            Error e;
            Native.Check(Native.arb_make_box(halfWidth, halfHeight, (byte*)&def + ShapeDef.UnionOffset, &e), &e);
            return def;
        }

        public static ShapeDef Circle(long radius)
        {
            ShapeDef def;
            Native.arb_shape_def_init(&def);
            def.CircleRadius = radius;
            return def;
        }

        public static BodyDef Body(ulong id, int type, Vec2 position)
        {
            BodyDef def;
            Native.arb_body_def_init(&def);
            def.Id = id;
            def.Type = type;
            def.Transform.P = position;
            return def;
        }
    }
}
