"""Launch links: the hosted Jupyter services that can open a lesson's notebook straight from
the repository the site is published from (`repository:` in lessons.yaml), as Jupyter
Book's launch buttons do. Colab opens notebooks from GitHub; Binder (where `binder_url` is
set) from GitHub and GitLab, building its environment from that branch."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from coursesite.config.manifest import BINDER_PROVIDERS, Repository

COLAB = "https://colab.research.google.com/github"


@dataclass(frozen=True)
class LaunchLink:
    service: str  # the name on the button: "Colab", "Binder"
    url: str


def launch_links(repository: Repository | None, notebook: str) -> list[LaunchLink]:
    """Where `notebook` (its path in the built site) opens, or nothing without a repository."""
    if repository is None:
        return []
    host, owner, name = repository.host_owner_name
    path = "/".join(part for part in (repository.site_folder.strip("/"), notebook) if part)
    links = []
    for service in repository.services():
        if service == "Colab":
            url = f"{COLAB}/{owner}/{name}/blob/{repository.branch}/{quote(path)}"
        else:
            provider = BINDER_PROVIDERS[host]
            project = f"{owner}/{name}" if provider == "gh" else quote(f"{owner}/{name}", safe="")
            binder = (repository.binder_url or "").rstrip("/")
            ref = quote(repository.branch, safe="")
            url = f"{binder}/v2/{provider}/{project}/{ref}?labpath={quote(path)}"
        links.append(LaunchLink(service, url))
    return links
