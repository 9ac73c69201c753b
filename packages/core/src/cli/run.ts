// Entry point of the `politely` bin: runs the CLI on this process's arguments.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
