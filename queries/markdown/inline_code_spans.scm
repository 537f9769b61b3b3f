; Code spans: text inside them never produces links (including `[[wiki]]` links).
(code_span) @code
