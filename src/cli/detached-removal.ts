import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { handOverTree, removeTreeSync } from '../layout/remove-tree.js';

/** The script a detached remover runs (bin/remove-tree.js): it calls removeHandedOver with the folder's path. */
const REMOVER = fileURLToPath(new URL('../../bin/remove-tree.js', import.meta.url));

/**
 * An interrupted command's staged output folder (abortWrites' `removeTree`), removed by a detached process so that
 * the command ends at once: removing the 30,000-40,000 files a large unpack had staged took it 0.8-1.2 s after
 * Ctrl-C (~20 us an unlink, in the kernel; two threads did not remove them faster on 2 cores). The folder is handed
 * to that process (handOverTree): a run starting meanwhile leaves it alone, and removes it itself should that
 * process die first. When no process can be started, the folder is removed here, as before. `command` is the
 * program and its first arguments (the path is added); tests give others.
 */
export function removeDetached(path: string, command: readonly string[] = [process.execPath, REMOVER]): void {
  let child: ChildProcess | undefined;
  try {
    // Its own process group (a second Ctrl-C does not reach it), no console window on Windows, no streams.
    child = spawn(command[0]!, [...command.slice(1), path], { detached: true, stdio: 'ignore', windowsHide: true });
  } catch {
    child = undefined;
  }
  // A program that cannot be started reports it as an event, after this returns: heard, and nothing more.
  child?.on('error', () => {});
  if (child?.pid === undefined) return removeTreeSync(path);
  child.unref();
  handOverTree(path, child.pid);
}

/** In the detached process: takes the folder (whichever of the two renames it first) and removes it. */
export function removeHandedOver(path: string): void {
  removeTreeSync(handOverTree(path, process.pid));
}
