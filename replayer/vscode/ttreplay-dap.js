#!/usr/bin/env node
/*
 * ttreplay-dap.js — a Debug Adapter Protocol server for ttreplay traces,
 * for VS Code and other DAP clients: cdt-gdb-adapter's gdb session over
 * `target remote | ttreplay TRACE`, plus what it lacks for a replay: it
 * advertises supportsStepBack, so the client shows its reverse buttons,
 * and maps stepBack and reverseContinue to GDB/MI's --reverse commands.
 *
 * Launch configuration (request "launch" or "attach", they mean the same):
 *   trace     the .idna file (default: latest.idna in the folder of cwd)
 *   program   the recorded program, for symbols (optional: ttreplay
 *             serves gdb the recorded one)
 *   ttreplay  the ttreplay command (default: ttreplay on PATH)
 *   gdb       the gdb command (default: gdb)
 * and cdt-gdb-adapter's own attach options (initCommands, verbose...).
 */
'use strict';
const path = require('path');
const { GDBTargetDebugSession } = require('cdt-gdb-adapter');

/* A shell word for `target remote | ...`, which gdb runs through sh. */
function shellQuote(s) {
	return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

class TtreplayDebugSession extends GDBTargetDebugSession {
	initializeRequest(response, args) {
		response.body = Object.assign({}, response.body, { supportsStepBack: true });
		super.initializeRequest(response, args);
	}

	/* The replay's target: ttreplay on a pipe, as gdb starts it. */
	replayArguments(args) {
		const cwd = args.cwd || process.cwd();
		const trace = path.resolve(cwd, args.trace || 'latest.idna');
		const ttreplay = args.ttreplay || 'ttreplay';
		return Object.assign({}, args, {
			target: Object.assign({}, args.target, {
				type: 'remote',
				parameters: [`| ${shellQuote(ttreplay)} ${shellQuote(trace)}`],
			}),
		});
	}

	launchRequest(response, args) {
		return this.attachRequest(response, args);
	}

	attachRequest(response, args) {
		return super.attachRequest(response, this.replayArguments(args));
	}

	async reverse(response, command, threadId) {
		try {
			/* MI's --thread is a general option: before the command's own. */
			const thread = threadId !== undefined ? ` --thread ${threadId}` : '';
			await this.gdb.sendCommand(`${command}${thread} --reverse`);
			this.sendResponse(response);
		} catch (err) {
			this.sendErrorResponse(response, 1, err instanceof Error ? err.message : String(err));
		}
	}

	/* VS Code's "Step Back" sits beside "Step Over": it undoes a next. */
	stepBackRequest(response, args) {
		const command = args.granularity === 'instruction' ? '-exec-next-instruction'
								   : '-exec-next';
		return this.reverse(response, command, args.threadId);
	}

	reverseContinueRequest(response, args) {
		return this.reverse(response, '-exec-continue', args.threadId);
	}
}

TtreplayDebugSession.run(TtreplayDebugSession);
