//! Communities of a weighted graph by modularity (the Louvain method), in a
//! fixed order so that the same graph always gives the same communities.
//!
//! Why modularity: a group of sentences is an idea when its sentences are
//! linked to each other more than sentences of the question are linked on
//! average; that judges a group against the question's own background, so
//! twelve sentences of one idea stay one group however many of the
//! question's sentences they are, and no fixed cosine decides it.
//!
//! The graph is dense (at most [`super::ideas::MAX_GROUPED`] nodes). Each
//! level moves every node, in order, to the neighbouring community that gains
//! most modularity, until no node moves; then each community becomes one
//! node and the next level starts, until a level merges nothing.

/// A symmetric matrix of non-negative weights, row by row (`n * n`); the
/// diagonal holds a node's weight to itself (a community's inner weight once
/// its nodes are one).
pub struct Graph {
    n: usize,
    weights: Vec<f32>,
}

impl Graph {
    /// A graph of `n` nodes without edges.
    pub fn new(n: usize) -> Graph {
        Graph { n, weights: vec![0.0; n * n] }
    }

    /// Links `a` and `b` with `weight`, or keeps the heavier of two links.
    pub fn link(&mut self, a: usize, b: usize, weight: f32) {
        if a == b || weight <= 0.0 {
            return;
        }
        let n = self.n;
        let kept = self.weights[a * n + b].max(weight);
        self.weights[a * n + b] = kept;
        self.weights[b * n + a] = kept;
    }

    fn row(&self, i: usize) -> &[f32] {
        &self.weights[i * self.n..(i + 1) * self.n]
    }
}

/// The communities of `graph` at `resolution` (1 is modularity's own; more
/// makes smaller communities), as lists of nodes in order, ordered by their
/// first node. A node without edges is a community of its own.
pub fn communities(graph: &Graph, resolution: f32) -> Vec<Vec<usize>> {
    // Which community of the current level each original node is in.
    let mut membership: Vec<usize> = (0..graph.n).collect();
    let mut level = Graph { n: graph.n, weights: graph.weights.clone() };
    loop {
        let moved = local_moves(&level, resolution);
        let count = moved.iter().max().map_or(0, |&c| c + 1);
        if count == level.n {
            break;
        }
        for community in membership.iter_mut() {
            *community = moved[*community];
        }
        level = aggregate(&level, &moved, count);
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut index: Vec<Option<usize>> = vec![None; graph.n];
    for (node, &community) in membership.iter().enumerate() {
        match index[community] {
            Some(g) => groups[g].push(node),
            None => {
                index[community] = Some(groups.len());
                groups.push(vec![node]);
            }
        }
    }
    groups
}

/// One level's moves: each node's community, numbered 0.. in order of first node.
fn local_moves(graph: &Graph, resolution: f32) -> Vec<usize> {
    let n = graph.n;
    let degree: Vec<f32> = (0..n).map(|i| graph.row(i).iter().sum()).collect();
    let total: f32 = degree.iter().sum();
    let mut community: Vec<usize> = (0..n).collect();
    if total <= 0.0 {
        return community;
    }
    // Each community's total degree.
    let mut community_degree = degree.clone();
    let mut toward = vec![0.0f32; n];
    let mut touched: Vec<usize> = Vec::new();
    // Bounded: every pass that moves a node raises modularity, so this ends; the bound only guards floating point.
    for _ in 0..64 {
        let mut moves = 0;
        for i in 0..n {
            let own = community[i];
            for (j, &w) in graph.row(i).iter().enumerate() {
                if j != i && w > 0.0 {
                    if toward[community[j]] == 0.0 {
                        touched.push(community[j]);
                    }
                    toward[community[j]] += w;
                }
            }
            community_degree[own] -= degree[i];
            let gain = |c: usize, toward: &[f32]| toward[c] - resolution * community_degree[c] * degree[i] / total;
            let mut best = own;
            let mut best_gain = gain(own, &toward);
            touched.sort_unstable();
            for &c in &touched {
                let g = gain(c, &toward);
                if g > best_gain + 1e-7 {
                    best = c;
                    best_gain = g;
                }
            }
            community_degree[best] += degree[i];
            if best != own {
                community[i] = best;
                moves += 1;
            }
            for &c in &touched {
                toward[c] = 0.0;
            }
            touched.clear();
        }
        if moves == 0 {
            break;
        }
    }
    renumber(&community)
}

/// Communities numbered 0.. in the order of their first node.
fn renumber(community: &[usize]) -> Vec<usize> {
    let mut number: Vec<Option<usize>> = vec![None; community.len()];
    let mut next = 0;
    community
        .iter()
        .map(|&c| {
            *number[c].get_or_insert_with(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// The graph of the communities: one node each, its links the sum of its nodes'.
fn aggregate(graph: &Graph, community: &[usize], count: usize) -> Graph {
    let mut next = Graph::new(count);
    for i in 0..graph.n {
        for (j, &w) in graph.row(i).iter().enumerate() {
            if w > 0.0 {
                next.weights[community[i] * count + community[j]] += w;
            }
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clique(graph: &mut Graph, nodes: &[usize], weight: f32) {
        for (k, &a) in nodes.iter().enumerate() {
            for &b in &nodes[k + 1..] {
                graph.link(a, b, weight);
            }
        }
    }

    #[test]
    fn dense_groups_are_communities_whatever_their_size() {
        // A group of twelve, one of six and one of three, weakly linked to each other.
        let mut graph = Graph::new(21);
        let big: Vec<usize> = (0..12).collect();
        let middle: Vec<usize> = (12..18).collect();
        let small: Vec<usize> = (18..21).collect();
        clique(&mut graph, &big, 0.5);
        clique(&mut graph, &middle, 0.5);
        clique(&mut graph, &small, 0.5);
        graph.link(0, 12, 0.1);
        graph.link(13, 18, 0.1);
        graph.link(5, 19, 0.1);
        assert_eq!(communities(&graph, 1.0), vec![big, middle, small]);
    }

    #[test]
    fn nodes_without_links_stay_alone_and_the_order_is_fixed() {
        let mut graph = Graph::new(5);
        graph.link(3, 4, 1.0);
        assert_eq!(communities(&graph, 1.0), vec![vec![0], vec![1], vec![2], vec![3, 4]]);
        assert_eq!(communities(&Graph::new(0), 1.0), Vec::<Vec<usize>>::new());
    }
}
