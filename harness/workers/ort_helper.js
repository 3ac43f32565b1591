#!/usr/bin/env node
// ort_helper.js - runs ONNX models in ONNX Runtime (npm onnxruntime-node, CPU) for the onnx
// worker. Persistent: one JSON object per line on stdin, one answer per line on stdout.
//
//   hello:   {"protocol": "aliasfuzz-ort/1", "onnxruntime": "1.x.y", "node": "v20..."}
//   request: {"id": N, "model": base64 ONNX bytes,
//             "inputs": [{"name", "shape", "dtype", "data": base64 little-endian}]}
//   answer:  {"id": N, "status": "ok", "outputs": [{"name", "shape", "dtype", "data"}]}
//            {"id": N, "status": "error", "message": "..."}
// Inputs the model does not declare are skipped (an exporter may drop unused inputs); outputs
// come back in the model's order. int64 travels as BigInt64Array, bool as one byte per element.
'use strict';

const readline = require('readline');

let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  process.stdout.write(JSON.stringify({protocol: 'aliasfuzz-ort/1', error: 'cannot load onnxruntime-node: ' + e.message}) + '\n');
  process.exit(3);
}

const TYPED = {
  float32: Float32Array,
  float64: Float64Array,
  int64: BigInt64Array,
  int32: Int32Array,
  bool: Uint8Array,
};

function ortVersion() {
  try {
    return require('onnxruntime-node/package.json').version;
  } catch (e) {
    return (ort.env && ort.env.versions && ort.env.versions.node) || 'unknown';
  }
}

function decode(t) {
  const Typed = TYPED[t.dtype];
  if (!Typed) throw new Error(`input ${t.name}: dtype ${t.dtype} not supported`);
  const raw = Buffer.from(t.data, 'base64');
  const numel = t.shape.reduce((a, b) => a * b, 1);
  if (raw.length !== numel * Typed.BYTES_PER_ELEMENT)
    throw new Error(`input ${t.name}: ${raw.length} bytes for shape [${t.shape}] ${t.dtype}`);
  // Copy into a fresh, aligned buffer: Buffer.from may return a slice of a shared pool.
  const data = new Typed(numel);
  new Uint8Array(data.buffer).set(raw);
  return new ort.Tensor(t.dtype, data, t.shape);
}

function encode(name, t) {
  const data = t.data;
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return {name, shape: Array.from(t.dims, Number), dtype: t.type, data: bytes.toString('base64')};
}

async function handle(req) {
  const session = await ort.InferenceSession.create(Buffer.from(req.model, 'base64'), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  try {
    const feeds = {};
    for (const t of req.inputs) if (session.inputNames.includes(t.name)) feeds[t.name] = decode(t);
    const results = await session.run(feeds);
    return {status: 'ok', outputs: session.outputNames.map((n) => encode(n, results[n]))};
  } finally {
    if (session.release) await session.release();
  }
}

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

send({protocol: 'aliasfuzz-ort/1', onnxruntime: ortVersion(), node: process.version});

// Requests are answered strictly in order.
let chain = Promise.resolve();
const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
rl.on('line', (line) => {
  if (!line.trim()) return;
  chain = chain.then(async () => {
    let id = null;
    try {
      const req = JSON.parse(line);
      id = req.id;
      const a = await handle(req);
      a.id = id;
      send(a);
    } catch (e) {
      send({id, status: 'error', message: String((e && e.message) || e)});
    }
  });
});
rl.on('close', () => chain.then(() => process.exit(0)));
