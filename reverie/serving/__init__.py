"""What the HTTP front ends share (the MCP server and the UI): bearer-token checks and the cache of
open scopes. No front end imports another; they meet here."""
