/**
 * The page's only script. It adds two things the static page cannot do: showing another branch
 * (every entry is rendered once; switching moves articles between the conversation and a hidden
 * pool) and rebuilding the session JSONL from the embedded data for download. It never inserts
 * session text as HTML.
 */
export const PAGE_SCRIPT = `
(function () {
	"use strict";
	var conversation = document.getElementById("conversation");
	var pool = document.getElementById("entry-pool");
	var banner = document.getElementById("branch-banner");
	var title = document.getElementById("conversation-title");
	var treeNodes = new Map();
	var parentOf = new Map();
	var childrenOf = new Map();
	document.querySelectorAll("a.tree-node").forEach(function (node) {
		var id = node.getAttribute("data-id");
		var parent = node.getAttribute("data-parent");
		treeNodes.set(id, node);
		parentOf.set(id, parent);
		if (!parent) return;
		if (!childrenOf.has(parent)) childrenOf.set(parent, []);
		childrenOf.get(parent).push(id);
	});
	var activePath = Array.prototype.map.call(conversation.children, function (article) {
		return article.getAttribute("data-id");
	});
	var activeIds = new Set(activePath);
	var shownPath = activePath;
	var shownIds = new Set(activePath);
	var selected = null;

	// Root to the entry, then on through the newest child at each step down to a leaf.
	function branchThrough(id) {
		if (shownIds.has(id)) return shownPath;
		if (activeIds.has(id)) return activePath;
		var seen = new Set();
		var path = [];
		for (var current = id; current && !seen.has(current); current = parentOf.get(current)) {
			seen.add(current);
			path.push(current);
		}
		path.reverse();
		var children = childrenOf.get(id);
		while (children && children.length) {
			var next = children[children.length - 1];
			if (seen.has(next)) break;
			seen.add(next);
			path.push(next);
			children = childrenOf.get(next);
		}
		return path;
	}

	function show(id) {
		if (!treeNodes.has(id)) return false;
		var path = branchThrough(id);
		if (path !== shownPath) {
			while (conversation.firstChild) pool.appendChild(conversation.firstChild);
			path.forEach(function (entryId) {
				var article = document.getElementById("e-" + entryId);
				if (article) conversation.appendChild(article);
			});
			shownPath = path;
			shownIds = new Set(path);
			treeNodes.forEach(function (node, nodeId) {
				node.classList.toggle("in-view", path !== activePath && shownIds.has(nodeId));
			});
			banner.hidden = path === activePath;
			title.hidden = path !== activePath;
		}
		if (selected) selected.classList.remove("selected");
		selected = treeNodes.get(id);
		selected.classList.add("selected");
		return true;
	}

	// Runs before the link's own navigation, which then scrolls to the now visible article.
	document.addEventListener("click", function (event) {
		var link = event.target instanceof Element ? event.target.closest("a[data-id]") : null;
		if (link) show(link.getAttribute("data-id"));
	});
	function showHash() {
		if (location.hash.indexOf("#e-") !== 0) return;
		var id = decodeURIComponent(location.hash.slice(3));
		var article = show(id) && document.getElementById("e-" + id);
		if (article) article.scrollIntoView({ block: "start" });
	}
	window.addEventListener("hashchange", showHash);
	showHash();

	var download = document.getElementById("download-jsonl");
	download.hidden = false;
	download.addEventListener("click", function (event) {
		event.preventDefault();
		var encoded = document.getElementById("session-data").textContent.trim();
		var bytes = Uint8Array.from(atob(encoded), function (character) { return character.charCodeAt(0); });
		var data = JSON.parse(new TextDecoder().decode(bytes));
		var lines = [JSON.stringify(data.header)].concat(data.entries.map(function (entry) { return JSON.stringify(entry); }));
		var url = URL.createObjectURL(new Blob([lines.join("\\n") + "\\n"], { type: "application/x-ndjson" }));
		var anchor = document.createElement("a");
		anchor.href = url;
		anchor.download = String(data.header.id || "session") + ".jsonl";
		document.body.appendChild(anchor);
		anchor.click();
		anchor.remove();
		setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
	});
})();
`;
