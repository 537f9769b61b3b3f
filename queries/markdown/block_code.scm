; Block-level regions that never produce links (code blocks, raw HTML).
(fenced_code_block) @code
(indented_code_block) @code
(html_block) @code
