/*
 * dap_session.js — drives replayer/vscode/ttreplay-dap.js over the Debug
 * Adapter Protocol as VS Code does, on a recording of
 * tests/replay/programs/counter.c, and checks the answers: step-back is
 * advertised, breakpoints stop, stepBack and reverseContinue go backwards.
 *   node dap_session.js ADAPTER TTREPLAY TRACE PROGRAM SOURCE
 * Prints "dap: N passed, M failed"; exits non-zero on a failure.
 */
'use strict';
const { spawn } = require('child_process');

const [adapter, ttreplay, trace, program, source] = process.argv.slice(2);
let passed = 0, failed = 0;
function check(ok, what) {
	if (ok) passed++;
	else { failed++; console.log(`FAIL: ${what}`); }
}

const child = spawn(process.execPath, [adapter], { stdio: ['pipe', 'pipe', 'inherit'] });
let buffer = Buffer.alloc(0), seq = 1;
const pending = new Map(), events = [], waiters = [];

child.stdout.on('data', (data) => {
	buffer = Buffer.concat([buffer, data]);
	for (;;) {
		const header = buffer.indexOf('\r\n\r\n');
		if (header < 0) return;
		const m = /Content-Length: (\d+)/.exec(buffer.slice(0, header).toString());
		const length = m ? Number(m[1]) : 0;
		if (buffer.length < header + 4 + length) return;
		const message = JSON.parse(buffer.slice(header + 4, header + 4 + length).toString());
		buffer = buffer.slice(header + 4 + length);
		if (message.type === 'response' && pending.has(message.request_seq)) {
			pending.get(message.request_seq)(message);
			pending.delete(message.request_seq);
		} else if (message.type === 'event') {
			events.push(message);
			waiters.splice(0).forEach((w) => w());
		}
	}
});

function request(command, args) {
	const message = { seq: seq++, type: 'request', command, arguments: args || {} };
	const body = JSON.stringify(message);
	child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
	return new Promise((resolve) => pending.set(message.seq, resolve));
}

/* The next event named `name` not consumed yet (the replay can be slow
 * under the sanitizers: no time limit but the test's own). */
async function event(name) {
	for (;;) {
		const i = events.findIndex((e) => e.event === name);
		if (i >= 0) return events.splice(i, 1)[0];
		await new Promise((resolve) => waiters.push(resolve));
	}
}

async function where(threadId) {
	const st = await request('stackTrace', { threadId, startFrame: 0, levels: 1 });
	const frame = st.body && st.body.stackFrames && st.body.stackFrames[0];
	return frame ? { name: frame.name, line: frame.line, id: frame.id } : {};
}

async function value(expression, frameId) {
	const r = await request('evaluate', { expression, frameId, context: 'repl' });
	return r.success ? r.body.result : `(error: ${r.message})`;
}

async function main() {
	const init = await request('initialize', { adapterID: 'ttreplay', linesStartAt1: true,
						   columnsStartAt1: true, pathFormat: 'path' });
	check(init.success && init.body.supportsStepBack === true, 'initialize advertises supportsStepBack');
	const attach = request('attach', { trace, program, ttreplay, gdb: 'gdb',
					   initCommands: ['set remotetimeout 600'] });
	await event('initialized');
	const bp = await request('setBreakpoints', { source: { path: source },
						     breakpoints: [{ line: 16 }] });
	check(bp.success && bp.body.breakpoints[0].verified, 'a breakpoint in bump() is set');
	await request('configurationDone');
	const attached = await attach;
	check(attached.success, `attach: ${attached.message || ''}`);

	await request('continue', { threadId: 1 });
	let stop = await event('stopped');
	const threadId = stop.body.threadId || 1;
	let at = await where(threadId);
	check(stop.body.reason === 'breakpoint' && at.name && at.name.startsWith('bump') && at.line === 16,
	      `continue stops at the breakpoint (${stop.body.reason}, ${at.name}:${at.line})`);
	check(await value('by', at.id) === '3', 'the first call: by = 3');

	await request('continue', { threadId });
	stop = await event('stopped');
	at = await where(threadId);
	check(await value('by', at.id) === '4', 'continue: the second call, by = 4');

	const back = await request('stepBack', { threadId });
	check(back.success, `stepBack: ${back.message || ''}`);
	stop = await event('stopped');
	at = await where(threadId);
	check(at.name === 'main' && at.line === 25,
	      `stepBack leaves bump() back to its call in main (${at.name}:${at.line})`);

	const rc = await request('reverseContinue', { threadId });
	check(rc.success, `reverseContinue: ${rc.message || ''}`);
	stop = await event('stopped');
	at = await where(threadId);
	check(stop.body.reason === 'breakpoint' && at.line === 16 && await value('by', at.id) === '3',
	      `reverseContinue: back at the first call (${stop.body.reason}, line ${at.line})`);

	await request('disconnect', { terminateDebuggee: false });
	child.stdin.end();
	console.log(`dap: ${passed} passed, ${failed} failed`);
	process.exit(failed ? 1 : 0);
}

main().catch((err) => {
	console.log(`FAIL: ${err && err.stack ? err.stack : err}`);
	console.log(`dap: ${passed} passed, ${failed + 1} failed`);
	process.exit(1);
});
