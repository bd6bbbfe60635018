"""What the HTTP front ends share (the MCP server and the UI): the port they bind (``network``: the
loopback and free-port checks), bearer-token checks (``auth``) and the cache of open scopes
(``scopecache``). No front end imports another; they meet here."""
