; Everything read from the block tree, in one pass (one pattern per capture name).
; Block-level regions that never produce links (code blocks, raw HTML).
(fenced_code_block) @code
(indented_code_block) @code
; Raw HTML: no links, but `id`/`name` anchors.
(html_block) @html
; Section headings (ATX `# Title` and setext `Title\n=====`).
(atx_heading) @heading
(setext_heading) @heading
; Nodes that own an inline tree: prose, heading content, table cells.
(inline) @inline
(pipe_table_cell) @inline
; Link reference definitions: `[label]: destination "title"`.
(link_reference_definition
  (link_label) @label
  (link_destination) @destination) @definition
