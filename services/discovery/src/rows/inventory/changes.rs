//! Who waits for a project's rows to change (`WatchPackages`): one counter per watched
//! project, bumped when a write in it finishes or fails, and for every project when the
//! subscription is lost or live again (events may have been missed). A watcher wakes,
//! re-decides its answer and sends it only if it changed; the counter carries no rows
//! and no names, so nothing here is decided for anyone.

use std::collections::HashMap;

use tokio::sync::watch;

/// The counters of the projects someone watches.
#[derive(Default)]
pub(crate) struct Changes {
    watched: HashMap<String, watch::Sender<u64>>,
}

impl Changes {
    /// A receiver that sees every later change of `project`.
    pub(crate) fn subscribe(&mut self, project: &str) -> watch::Receiver<u64> {
        match self.watched.get(project) {
            Some(sender) => sender.subscribe(),
            None => {
                let (sender, receiver) = watch::channel(0);
                self.watched.insert(project.to_owned(), sender);
                receiver
            }
        }
    }

    /// `project`'s rows may have changed.
    pub(crate) fn notify(&mut self, project: &str) {
        let Some(sender) = self.watched.get(project) else {
            return;
        };
        if sender.receiver_count() == 0 {
            // Every watcher is gone: forget the project.
            self.watched.remove(project);
            return;
        }
        sender.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Any project's rows may have changed unseen.
    pub(crate) fn notify_all(&mut self) {
        self.watched.retain(|_, sender| sender.receiver_count() > 0);
        for sender in self.watched.values() {
            sender.send_modify(|n| *n = n.wrapping_add(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_write_wakes_the_watchers_of_its_project_only() {
        let mut changes = Changes::default();
        let mut p1 = changes.subscribe("p1");
        let p2 = changes.subscribe("p2");
        changes.notify("p1");
        assert!(p1.has_changed().unwrap_or(false));
        assert!(!p2.has_changed().unwrap_or(true));
        p1.mark_unchanged();
        changes.notify_all();
        assert!(p1.has_changed().unwrap_or(false));
        assert!(p2.has_changed().unwrap_or(false));
    }

    #[test]
    fn a_project_nobody_watches_is_forgotten() {
        let mut changes = Changes::default();
        drop(changes.subscribe("p1"));
        changes.notify("p1");
        assert!(changes.watched.is_empty());
        drop(changes.subscribe("p2"));
        changes.notify_all();
        assert!(changes.watched.is_empty());
    }
}
